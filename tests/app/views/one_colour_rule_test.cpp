// Issue 15: one head was drawn three ways — the model grid's thumbnails scaled each head to its
// own maximum, an exported grid scaled all heads to one shared range, and the previews drawn
// above the memory budget ignored the mask. One rule now (render/head_colors.h): for a small
// fixed result, a grid thumbnail, an exported figure cell and a preview thumbnail of the same
// head have the same colours.
#include <QImage>
#include <QPainter>
#include <QSet>
#include <QTest>

#include "attnscope/analysis/head_stats.h"
#include "hand_made_results.h"
#include "render/figure.h"
#include "render/head_colors.h"
#include "views/head_grid_model.h"

using namespace attnscope;
using attnscope::app::HeadGridModel;

namespace {

constexpr int kTokens = 4;

// 2 layers x 2 heads whose largest weights differ (0.9 down to 0.4), with one masked cell,
// so a per-head range and a shared range give different colours.
std::shared_ptr<const analysis::SentenceAnalysis> fixedAnalysis() {
    auto a = std::make_shared<analysis::SentenceAnalysis>();
    a->text = "w0 w1 w2 w3";
    a->forward = test::forwardFrame(2, 2, kTokens, 0, "custom");
    forward::ForwardResult& f = a->forward;
    f.allowed(0, 3) = 0;
    f.scales = {0.5f, 0.5f};
    for (int i = 0; i < kTokens; ++i) {
        a->tokens.push_back(test::token(i, std::string(1, static_cast<char>('a' + i))));
        f.tokenIds.push_back(i);
    }
    const auto cells = static_cast<std::size_t>(4 * kTokens * kTokens);
    f.probs.assign(cells, 0.0f);
    for (int h = 0; h < 4; ++h) {
        const float peak = 0.9f - 0.15f * static_cast<float>(h);
        for (int q = 0; q < kTokens; ++q) {
            const int allowedKeys = q == 0 ? kTokens - 1 : kTokens;
            const float rest = (1.0f - peak) / static_cast<float>(allowedKeys - 1);
            for (int k = 0; k < allowedKeys; ++k) {
                f.probs[static_cast<std::size_t>((h * kTokens + q) * kTokens + k)] =
                    k == (q + h) % allowedKeys ? peak : rest;
            }
        }
    }
    f.logits.assign(f.probs.begin(), f.probs.end());
    f.entropy.assign(static_cast<std::size_t>(4 * kTokens), 0.5f);
    f.summarizeFromMaps();
    a->stats = analysis::headStats(f);
    return a;
}

// The same result as a pass over the memory budget leaves it: previews (for 4 tokens the
// pooled preview is the map itself) and no maps.
std::shared_ptr<const analysis::SentenceAnalysis> previewsOnly(
    const analysis::SentenceAnalysis& a) {
    auto lean = std::make_shared<analysis::SentenceAnalysis>(a);
    forward::ForwardResult& f = lean->forward;
    f.mapsRecorded = false;
    f.previewSize = kTokens;
    f.previews.assign(f.probs.begin(), f.probs.end());
    f.probs = {};
    f.logits = {};
    return lean;
}

QImage thumbnail(const HeadGridModel& model, HeadId h) {
    return model.data(model.indexOf(h), Qt::DecorationRole).value<QImage>();
}

QSet<QRgb> colorsOf(const QImage& image) {
    QSet<QRgb> colors;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            colors.insert(image.pixel(x, y));
        }
    }
    return colors;
}

}  // namespace

class OneColourRuleTest : public QObject {
    Q_OBJECT

private slots:
    void gridThumbnailsPreviewsAndExportAgree_data();
    void gridThumbnailsPreviewsAndExportAgree();
};

void OneColourRuleTest::gridThumbnailsPreviewsAndExportAgree_data() {
    QTest::addColumn<int>("scaling");
    QTest::newRow("linear") << static_cast<int>(render::Scaling::Linear);
    QTest::newRow("log") << static_cast<int>(render::Scaling::Log);
    QTest::newRow("per-row") << static_cast<int>(render::Scaling::PerRow);
}

void OneColourRuleTest::gridThumbnailsPreviewsAndExportAgree() {
    QFETCH(int, scaling);
    render::HeatmapStyle style;
    style.scaling = static_cast<render::Scaling>(scaling);
    const auto full = fixedAnalysis();
    const auto lean = previewsOnly(*full);
    HeadGridModel grid;
    grid.setResult(full, style);
    HeadGridModel previews;
    previews.setResult(lean, style);

    render::FigureOptions options;
    options.pixelSize = {1000, 900};
    options.dpi = 100;
    options.style = style;
    QImage figure(options.pixelSize, QImage::Format_RGB32);
    figure.fill(Qt::white);
    {
        QPainter p(&figure);
        render::paintHeadsFigure(p, *full, {}, options);  // the whole model, as exported
    }
    const QSet<QRgb> figureColors = colorsOf(figure);

    const render::HeadColorRule rule(full->forward, style);
    const render::ColorRange range = rule.rangeOfAllHeads();
    for (int layer = 0; layer < 2; ++layer) {
        for (int head = 0; head < 2; ++head) {
            const HeadId h{layer, head};
            const QImage cells = thumbnail(grid, h);
            QCOMPARE(cells.size(), QSize(kTokens, kTokens));
            QCOMPARE(cells, rule.image(h, range));
            QCOMPARE(thumbnail(previews, h), cells);  // above the budget: the same colours
            QCOMPARE(QColor(cells.pixel(3, 0)), render::maskedCellColor());
            for (int q = 0; q < kTokens; ++q) {
                for (int k = 0; k < kTokens; ++k) {
                    QVERIFY2(figureColors.contains(cells.pixel(k, q)),
                             qPrintable(QStringLiteral("head %1-%2, cell (%3, %4): %5 is not in "
                                                       "the exported grid")
                                            .arg(layer)
                                            .arg(head)
                                            .arg(q)
                                            .arg(k)
                                            .arg(QColor(cells.pixel(k, q)).name())));
                }
            }
        }
    }
}

QTEST_MAIN(OneColourRuleTest)
#include "one_colour_rule_test.moc"
