// Figure export of heads (render/figure.h) on generated checkpoints and synthetic maps: PNG
// size, DPI and content; SVG well-formed with the token labels as text; PDF a vector page of
// the figure's size; failed exports name the file and leave an existing file as it was.
#include "render/figure.h"

#include <cmath>
#include <filesystem>
#include <map>

#include <QImage>
#include <QPainter>
#include <QSet>
#include <gtest/gtest.h>

#include "../../core/support/expect_error.h"
#include "../../core/support/test_files.h"
#include "attnscope/base/error.h"
#include "attnscope/model/model.h"
#include "gui_environment.h"
#include "hand_made_results.h"
#include "render/figure_file.h"
#include "svg_content.h"

namespace attnscope::render {
namespace {

namespace fs = std::filesystem;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

// One analysis per checkpoint, computed once for the whole program.
const analysis::SentenceAnalysis& analysisOf(const std::string& checkpoint) {
    static std::map<std::string, analysis::SentenceAnalysis> cache;
    auto it = cache.find(checkpoint);
    if (it == cache.end()) {
        const auto m = model::loadModel(kCheckpoints / checkpoint);
        const std::vector<std::int32_t> ids =
            checkpoint == "bert_f32" ? std::vector<std::int32_t>{2, 150, 200, 250, 3}
                                     : std::vector<std::int32_t>{5, 60, 300, 310, 7, 9};
        it = cache.emplace(checkpoint, analysis::analyzeIds(*m, ids, {})).first;
    }
    return it->second;
}

// A made-up analysis with `n` tokens named t0, t1, ...: weights fall off with distance.
analysis::SentenceAnalysis synthetic(int layers, int heads, int n, bool causal) {
    analysis::SentenceAnalysis a;
    a.text = "a synthetic sentence";
    a.forward = test::forwardFrame(layers, heads, n, 0, causal ? "causal" : "none");
    forward::ForwardResult& f = a.forward;
    f.probs.assign(static_cast<std::size_t>(layers * heads * n * n), 0.0f);
    for (int i = 0; i < n; ++i) {
        f.tokenIds.push_back(i);
        a.tokens.push_back(test::numberedToken(i, 't', i));
    }
    for (int h = 0; h < layers * heads; ++h) {
        for (int q = 0; q < n; ++q) {
            double sum = 0;
            std::vector<double> w(static_cast<std::size_t>(n), 0.0);
            for (int k = 0; k < n; ++k) {
                if (causal && k > q) {
                    f.allowed(q, k) = 0;
                    continue;
                }
                w[static_cast<std::size_t>(k)] = 1.0 / (1.0 + std::abs(q - k - h % 3));
                sum += w[static_cast<std::size_t>(k)];
            }
            for (int k = 0; k < n; ++k) {
                f.probs[static_cast<std::size_t>((h * n + q) * n + k)] =
                    static_cast<float>(w[static_cast<std::size_t>(k)] / sum);
            }
        }
    }
    return a;
}

FigureOptions options(QSize size = {1200, 1000}, int dpi = 150) {
    FigureOptions o;
    o.pixelSize = size;
    o.dpi = dpi;
    o.modelName = QStringLiteral("test-model");
    return o;
}

QString qpath(const fs::path& p) {
    return QString::fromStdString(p.string());
}

int distinctColors(const QImage& image) {
    QSet<QRgb> colors;
    for (int y = 0; y < image.height(); y += 3) {
        for (int x = 0; x < image.width(); x += 3) {
            colors.insert(image.pixel(x, y));
        }
    }
    return static_cast<int>(colors.size());
}

bool containsColor(const QImage& image, QColor color) {
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            if (image.pixel(x, y) == color.rgb()) {
                return true;
            }
        }
    }
    return false;
}

QStringList labelsOf(const analysis::SentenceAnalysis& a) {
    QStringList labels;
    for (int i = 0; i < a.forward.nTokens; ++i) {
        labels << QString::fromStdString(a.label(i));
    }
    return labels;
}

bool anyTextContains(const QStringList& texts, const QString& what) {
    return std::any_of(texts.begin(), texts.end(),
                       [&](const QString& t) { return t.contains(what); });
}

TEST(Figure, HeadPngHasTheRequestedSizeDpiAndContent) {
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "head.png";
    saveHeadFigure(qpath(out), analysisOf("bert_f32"), {1, 2}, options({900, 700}, 150));
    const QImage image(qpath(out));
    ASSERT_FALSE(image.isNull());
    EXPECT_EQ(image.size(), QSize(900, 700));
    EXPECT_NEAR(image.dotsPerMeterX(), 150 / 0.0254, 1.0);
    EXPECT_NEAR(image.dotsPerMeterY(), 150 / 0.0254, 1.0);
    EXPECT_GE(distinctColors(image), 10);
    EXPECT_EQ(image.pixel(2, 2), qRgb(255, 255, 255));  // white margins for print
}

TEST(Figure, GridPngOfACausalModelShowsMaskedCells) {
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "grid.png";
    saveHeadsFigure(qpath(out), analysisOf("gpt2_f32"), {}, options());
    const QImage image(qpath(out));
    ASSERT_FALSE(image.isNull());
    EXPECT_EQ(image.size(), QSize(1200, 1000));
    EXPECT_GE(distinctColors(image), 10);
    EXPECT_TRUE(containsColor(image, maskedCellColor()));
}

TEST(Figure, HeadSvgIsWellFormedWithTokenLabelsAsText) {
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "head.svg";
    const analysis::SentenceAnalysis& a = analysisOf("bert_f32");
    saveHeadFigure(qpath(out), a, {1, 2}, options());
    const testing::SvgContent svg = testing::readSvg(out);
    ASSERT_TRUE(svg.error.isEmpty()) << svg.error.toStdString();
    for (const QString& label : labelsOf(a)) {
        // Once as a query, once as a key.
        EXPECT_EQ(svg.texts.count(label), 2) << label.toStdString();
    }
    EXPECT_TRUE(anyTextContains(svg.texts, QStringLiteral("layer 1, head 2 (0-based)")));
    EXPECT_TRUE(anyTextContains(svg.texts, QStringLiteral("attention weight")));
    EXPECT_EQ(svg.images, 0) << "a short input is drawn as vector cells";
}

TEST(Figure, GridSvgNamesLayersAndHeads) {
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "grid.svg";
    const analysis::SentenceAnalysis& a = analysisOf("gpt2_f32");
    saveHeadsFigure(qpath(out), a, {}, options());
    const testing::SvgContent svg = testing::readSvg(out);
    ASSERT_TRUE(svg.error.isEmpty()) << svg.error.toStdString();
    for (const char* header : {"L0", "L1", "H0", "H1", "H2"}) {
        EXPECT_TRUE(svg.texts.contains(QString::fromLatin1(header))) << header;
    }
    // Outer panels only: each label once on the left column's rows and once per top-row map.
    for (const QString& label : labelsOf(a)) {
        EXPECT_EQ(svg.texts.count(label), a.forward.nLayers + a.forward.nHeads)
            << label.toStdString();
    }
    EXPECT_TRUE(anyTextContains(svg.texts, QStringLiteral("masked")));
}

TEST(Figure, ChosenHeadsAreCaptioned) {
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "set.svg";
    saveHeadsFigure(qpath(out), analysisOf("bert_f32"), {{0, 1}, {1, 0}}, options());
    const testing::SvgContent svg = testing::readSvg(out);
    ASSERT_TRUE(svg.error.isEmpty()) << svg.error.toStdString();
    EXPECT_TRUE(svg.texts.contains(QStringLiteral("layer 0, head 1")));
    EXPECT_TRUE(svg.texts.contains(QStringLiteral("layer 1, head 0")));
    EXPECT_TRUE(anyTextContains(svg.texts, QStringLiteral("0-based")));
}

// Long inputs: the cells become an embedded image; the grid drops its token labels while the
// one-head figure thins them to every k-th.
TEST(Figure, LongInputsEmbedAnImageAndThinOrDropLabels) {
    testing::ScratchDir tmp;
    const analysis::SentenceAnalysis a = synthetic(3, 4, 80, true);
    const fs::path grid = tmp.path() / "grid.svg";
    saveHeadsFigure(qpath(grid), a, {}, options({900, 800}, 150));
    const testing::SvgContent gridSvg = testing::readSvg(grid);
    ASSERT_TRUE(gridSvg.error.isEmpty()) << gridSvg.error.toStdString();
    EXPECT_EQ(gridSvg.images, 12);
    EXPECT_FALSE(gridSvg.texts.contains(QStringLiteral("t0")));

    const fs::path head = tmp.path() / "head.svg";
    saveHeadFigure(qpath(head), a, {2, 3}, options({900, 800}, 150));
    const testing::SvgContent headSvg = testing::readSvg(head);
    ASSERT_TRUE(headSvg.error.isEmpty()) << headSvg.error.toStdString();
    EXPECT_EQ(headSvg.images, 1);
    EXPECT_EQ(headSvg.texts.count(QStringLiteral("t0")), 2);
    int labelled = 0;
    for (int i = 0; i < 80; ++i) {
        labelled += headSvg.texts.contains(QStringLiteral("t%1").arg(i)) ? 1 : 0;
    }
    EXPECT_GT(labelled, 5);
    EXPECT_LT(labelled, 80);

    // In PDF too the cells are an image, stored losslessly (Qt would pick JPEG otherwise).
    const fs::path pdf = tmp.path() / "head.pdf";
    saveHeadFigure(qpath(pdf), a, {2, 3}, options({900, 800}, 150));
    const std::string bytes = testing::readFile(pdf);
    EXPECT_NE(bytes.find("/Subtype /Image"), std::string::npos);
    EXPECT_EQ(bytes.find("/DCTDecode"), std::string::npos);
}

TEST(Figure, PdfIsAVectorPageOfTheFigureSize) {
    testing::ScratchDir tmp;
    for (const bool grid : {false, true}) {
        const fs::path out = tmp.path() / (grid ? "grid.pdf" : "head.pdf");
        if (grid) {
            saveHeadsFigure(qpath(out), analysisOf("gpt2_f32"), {}, options({1600, 1400}, 200));
        } else {
            saveHeadFigure(qpath(out), analysisOf("gpt2_f32"), {0, 1}, options({1600, 1400}, 200));
        }
        const std::string bytes = testing::readFile(out);
        EXPECT_EQ(bytes.rfind("%PDF-", 0), 0u) << out;
        EXPECT_GT(bytes.size(), 5000u) << out;
        // 1600 x 1400 pixels at 200 dpi: 8 x 7 inches = 576 x 504 points.
        EXPECT_NE(bytes.find("/MediaBox [0 0 576"), std::string::npos) << out;
        EXPECT_EQ(bytes.find("/Subtype /Image"), std::string::npos) << "cells are vector: " << out;
    }
}

TEST(Figure, PreviewPaintsIntoAnyImage) {
    QImage image(480, 360, QImage::Format_RGB32);
    image.fill(Qt::black);
    {
        QPainter painter(&image);
        paintHeadsFigure(painter, analysisOf("gpt2_f32"), {{0, 0}, {1, 2}},
                         options({480, 360}, 96));
    }
    EXPECT_EQ(image.pixel(1, 1), qRgb(255, 255, 255));
    EXPECT_GE(distinctColors(image), 10);
}

TEST(FigureExport, MissingFolderThrowsNamingTheFile) {
    testing::ScratchDir tmp;
    for (const char* name : {"fig.png", "fig.svg", "fig.pdf"}) {
        const fs::path out = tmp.path() / "no-such-folder" / name;
        testing::expectError<Error>(
            [&] {
                saveHeadFigure(qpath(out), analysisOf("bert_f32"), {0, 0}, options());
            },
            {out.string() + ": "});
        EXPECT_FALSE(fs::exists(out.parent_path()));
    }
}

TEST(FigureExport, TargetIsAFolder) {
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "figure.png";
    fs::create_directory(out);
    testing::expectError<Error>(
        [&] { saveHeadsFigure(qpath(out), analysisOf("bert_f32"), {}, options()); },
        {out.string() + ": "});
    EXPECT_TRUE(fs::is_directory(out));
}

TEST(FigureExport, UnknownHeadThrowsAndKeepsTheOldFile) {
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "fig.png";
    testing::writeFile(out, "old figure");
    testing::expectError<InvalidArgument>(
        [&] {
            saveHeadFigure(qpath(out), analysisOf("bert_f32"), {2, 0}, options());
        },
        {out.string() + ": ", "layer 2, head 0", "2 layers of 3 heads"});
    testing::expectError<InvalidArgument>(
        [&] {
            saveHeadsFigure(qpath(out), analysisOf("bert_f32"), {{0, 0}, {0, 3}}, options());
        },
        {"layer 0, head 3"});
    EXPECT_EQ(testing::readFile(out), "old figure");
}

// A failure after the file was opened (here an exception from the painting) must discard the
// temporary file and leave the old one, in every format.
TEST(FigureExport, FailureWhileWritingKeepsTheOldFileAndLeavesNoTemporary) {
    testing::ScratchDir tmp;
    for (const char* name : {"fig.png", "fig.svg", "fig.pdf"}) {
        const fs::path out = tmp.path() / name;
        testing::writeFile(out, "old figure");
        EXPECT_THROW(writeFigureFile(qpath(out), {},
                                     [](QPainter& p) {
                                         p.drawLine(0, 0, 10, 10);
                                         throw Error("painting failed");
                                     }),
                     Error);
        EXPECT_EQ(testing::readFile(out), "old figure") << name;
    }
    EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path()), fs::directory_iterator()), 3);
}

TEST(FigureExport, ReplacesAnExistingFile) {
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "fig.svg";
    testing::writeFile(out, "old figure");
    saveHeadFigure(qpath(out), analysisOf("gpt2_f32"), {1, 1}, options());
    EXPECT_TRUE(testing::readSvg(out).error.isEmpty());
    EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path()), fs::directory_iterator()), 1);
}

TEST(FigureExport, UnknownExtensionAndUnusableSizes) {
    testing::ScratchDir tmp;
    const fs::path jpg = tmp.path() / "fig.jpg";
    testing::expectError<InvalidArgument>(
        [&] {
            saveHeadFigure(qpath(jpg), analysisOf("bert_f32"), {0, 0}, options());
        },
        {jpg.string() + ": ", ".jpg", ".png, .svg or .pdf"});
    const fs::path png = tmp.path() / "fig.png";
    testing::expectError<InvalidArgument>(
        [&] {
            saveHeadFigure(qpath(png), analysisOf("bert_f32"), {0, 0}, options({10, 10}));
        },
        {png.string() + ": ", "10x10"});
    testing::expectError<InvalidArgument>(
        [&] {
            saveHeadFigure(qpath(png), analysisOf("bert_f32"), {0, 0}, options({800, 600}, 5));
        },
        {png.string() + ": ", "5 dpi"});
    EXPECT_FALSE(fs::exists(jpg));
    EXPECT_FALSE(fs::exists(png));
}

TEST(FigureExport, ReadOnlyFileIsNotReplaced) {
    if (::geteuid() == 0) {
        GTEST_SKIP() << "running as root: permission bits do not stop writes";
    }
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "fig.png";
    testing::writeFile(out, "old figure");
    fs::permissions(out, fs::perms::owner_read);
    testing::expectError<Error>(
        [&] {
            saveHeadFigure(qpath(out), analysisOf("bert_f32"), {0, 0}, options());
        },
        {out.string() + ": "});
    EXPECT_EQ(testing::readFile(out), "old figure");
}

}  // namespace
}  // namespace attnscope::render
