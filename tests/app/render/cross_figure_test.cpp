// Figures of rectangular maps (issue 20): an encoder-decoder's cross-attention is [target rows,
// source columns]. Panels keep square cells, so their aspect is columns / rows; rows and columns
// carry their own labels; the mask is [rows, columns]; the vector-cell limit counts rows ×
// columns; the note says how to read the axes.
#include <algorithm>
#include <filesystem>

#include <QImage>
#include <QPainter>
#include <gtest/gtest.h>

#include "../../core/support/test_files.h"
#include "gui_environment.h"
#include "hand_made_results.h"
#include "render/colormap.h"
#include "render/figure.h"
#include "render/figure_painter.h"
#include "svg_content.h"

namespace attnscope::render {
namespace {

namespace fs = std::filesystem;

// Rows d0 … d(n-1) (decoder input tokens), columns s0 … s(k-1) (source tokens). `uniform`: every
// allowed weight 1/k, so every cell has the colour map's top colour; else weights vary.
analysis::SentenceAnalysis crossAnalysis(int layers, int heads, int n, int k, bool uniform) {
    analysis::SentenceAnalysis a;
    a.text = "target side";
    a.keyText = "the source sentence";
    a.forward = test::forwardFrame(layers, heads, n, k, "none");
    forward::ForwardResult& f = a.forward;
    for (int i = 0; i < n; ++i) {
        f.tokenIds.push_back(i);
        a.tokens.push_back(test::numberedToken(i, 'd', i));
    }
    for (int j = 0; j < k; ++j) {
        f.keyTokenIds.push_back(100 + j);
        a.keyTokens.push_back(test::numberedToken(100 + j, 's', j));
    }
    f.probs.assign(static_cast<std::size_t>(layers * heads * n * k), 1.0f / k);
    if (!uniform) {
        for (std::size_t c = 0; c < f.probs.size(); ++c) {
            f.probs[c] = static_cast<float>(1 + c % 7) / (4.0f * k);
        }
    }
    return a;
}

FigureOptions options(QSize size = {1200, 1000}) {
    FigureOptions o;
    o.pixelSize = size;
    o.dpi = 150;
    o.modelName = QStringLiteral("test-seq2seq");
    return o;
}

QImage paintHead(const analysis::SentenceAnalysis& a, const FigureOptions& o) {
    QImage image(o.pixelSize, QImage::Format_RGB32);
    QPainter painter(&image);
    paintHeadFigure(painter, a, {0, 0}, o);
    return image;
}

// The longest run of `color` along any row (horizontal) or column (vertical) of `image`.
int longestRun(const QImage& image, QRgb color, bool horizontal) {
    const int outer = horizontal ? image.height() : image.width();
    const int inner = horizontal ? image.width() : image.height();
    int best = 0;
    for (int o = 0; o < outer; ++o) {
        int run = 0;
        for (int i = 0; i < inner; ++i) {
            const QRgb p = horizontal ? image.pixel(i, o) : image.pixel(o, i);
            run = p == color ? run + 1 : 0;
            best = std::max(best, run);
        }
    }
    return best;
}

QStringList svgTexts(const fs::path& path, int* images) {
    const testing::SvgContent svg = testing::readSvg(path);
    EXPECT_TRUE(svg.error.isEmpty()) << svg.error.toStdString();
    *images = svg.images;
    return svg.texts;
}

// Whether the figure's text says `what`, wrapped over lines (one <text> each) or not.
bool anyContains(const QStringList& texts, const QString& what) {
    return texts.join(QLatin1Char(' ')).simplified().contains(what);
}

// Every cell has the top colour, so the map is the longest run of it each way (the colour
// bar's top colour is only a few pixels tall and its width is far less than the map's).
TEST(CrossFigure, PanelIsAsWideAsItHasSourceTokens) {
    const QRgb top = colorAt(Colormap::Viridis, 1.0);
    for (const auto& [n, k] : {std::pair{4, 12}, std::pair{12, 4}, std::pair{6, 6}}) {
        const QImage image = paintHead(crossAnalysis(1, 1, n, k, true), options());
        const int width = longestRun(image, top, true);
        const int height = longestRun(image, top, false);
        ASSERT_GT(width, 40) << n << "x" << k;
        ASSERT_GT(height, 40) << n << "x" << k;
        // Square cells: the map's aspect is k / n, within the frame's antialiased pixel.
        EXPECT_NEAR(static_cast<double>(width) / height, static_cast<double>(k) / n, 0.05 * k / n)
            << n << "x" << k << ": " << width << " x " << height;
    }
}

TEST(CrossFigure, RowsAndColumnsHaveTheirOwnLabelsAndTheNoteSaysWhich) {
    testing::ScratchDir tmp;
    const analysis::SentenceAnalysis a = crossAnalysis(1, 2, 3, 9, false);
    const fs::path plain = tmp.path() / "plain.svg";
    saveHeadFigure(QString::fromStdString(plain.string()), a, {0, 1}, options());
    int images = 0;
    const QStringList texts = svgTexts(plain, &images);
    for (int j = 0; j < 9; ++j) {
        EXPECT_EQ(texts.count(QStringLiteral("s%1").arg(j)), 1) << j;
    }
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(texts.count(QStringLiteral("d%1").arg(i)), 1) << i;
    }
    EXPECT_FALSE(texts.contains(QStringLiteral("d3")));  // no row label for a source token
    EXPECT_TRUE(texts.contains(QStringLiteral("source")));
    EXPECT_TRUE(texts.contains(QStringLiteral("target")));
    EXPECT_FALSE(texts.contains(QStringLiteral("query")));
    EXPECT_TRUE(anyContains(texts, QStringLiteral("3 target × 9 source tokens")));
    EXPECT_TRUE(anyContains(texts, QStringLiteral("rows: target tokens (decoder input)")));
    EXPECT_TRUE(anyContains(texts, QStringLiteral("“the source sentence” → “target side”")));
    // Without text, each side's ids.
    analysis::SentenceAnalysis ids = a;
    ids.text.clear();
    ids.keyText.clear();
    const fs::path idsSvg = tmp.path() / "ids.svg";
    saveHeadFigure(QString::fromStdString(idsSvg.string()), ids, {0, 0}, options());
    EXPECT_TRUE(anyContains(svgTexts(idsSvg, &images),
                            QStringLiteral("source ids: 100 101 102 103 104 105 106 107 108 → "
                                           "decoder ids: 0 1 2")));

    // Rows named by the token each produces, as the head view names them.
    FigureOptions o = options();
    o.rowLabels = {QStringLiteral("→ a"), QStringLiteral("→ b"), QStringLiteral("→ c")};
    const fs::path produced = tmp.path() / "produced.svg";
    saveHeadsFigure(QString::fromStdString(produced.string()), a, {{0, 0}, {0, 1}}, o);
    const QStringList named = svgTexts(produced, &images);
    EXPECT_EQ(named.count(QStringLiteral("→ b")), 2);  // each map labels its rows
    EXPECT_FALSE(named.contains(QStringLiteral("d1")));
    EXPECT_EQ(named.count(QStringLiteral("s8")), 2);
    EXPECT_TRUE(anyContains(named, QStringLiteral("(decoder) → the token each produces")));
    EXPECT_TRUE(anyContains(named, QStringLiteral("columns: source tokens")));
}

TEST(CrossFigure, MaskIsRowsByColumns) {
    analysis::SentenceAnalysis a = crossAnalysis(1, 1, 3, 8, false);
    EXPECT_EQ(figureMask(a.forward), nullptr);  // nothing masked
    a.forward.allowed.col(7).setZero();         // a padded source token
    a.forward.maskKind = "source padding";
    const BoolMatrix* mask = figureMask(a.forward);
    ASSERT_NE(mask, nullptr);
    EXPECT_EQ(mask->rows(), 3);
    EXPECT_EQ(mask->cols(), 8);
    const QImage image = paintHead(a, options());
    const QRgb grey = maskedCellColor().rgb();
    // The masked column is drawn grey over the map's full height (hatched, so runs are shorter
    // than a cell but present), and the legend names it.
    EXPECT_GT(longestRun(image, grey, false), 5);
    // A mask of the wrong shape is not drawn.
    a.forward.allowed = BoolMatrix::Zero(3, 3);
    EXPECT_EQ(figureMask(a.forward), nullptr);
}

TEST(CrossFigure, VectorCellsCountRowsTimesColumns) {
    testing::ScratchDir tmp;
    int images = -1;
    const fs::path small = tmp.path() / "small.svg";
    saveHeadFigure(QString::fromStdString(small.string()), crossAnalysis(1, 1, 4, 20, false),
                   {0, 0}, options());
    svgTexts(small, &images);
    EXPECT_EQ(images, 0);  // vector rectangles
    // 4 rows, but 80 source columns: more than the 64 tokens a vector map may have.
    const fs::path wide = tmp.path() / "wide.svg";
    saveHeadFigure(QString::fromStdString(wide.string()), crossAnalysis(1, 1, 4, 80, false), {0, 0},
                   options());
    svgTexts(wide, &images);
    EXPECT_EQ(images, 1);
}

TEST(CrossFigure, GridLabelsOuterPanelsOnly) {
    testing::ScratchDir tmp;
    const fs::path grid = tmp.path() / "grid.svg";
    saveHeadsFigure(QString::fromStdString(grid.string()), crossAnalysis(2, 3, 3, 5, false), {},
                    options({1600, 900}));
    int images = 0;
    const QStringList texts = svgTexts(grid, &images);
    EXPECT_EQ(texts.count(QStringLiteral("s4")), 3);  // above each map of the top row
    EXPECT_EQ(texts.count(QStringLiteral("d2")), 2);  // left of each map of the left column
    EXPECT_TRUE(texts.contains(QStringLiteral("H2")));
    EXPECT_TRUE(texts.contains(QStringLiteral("L1")));
}

}  // namespace
}  // namespace attnscope::render
