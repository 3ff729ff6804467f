// OffsetsView against real forward passes of the generated GPT-2 (causal) and BERT checkpoints:
// the bars are the core's mean attention by offset, the highlighted bar and the caption are
// Voita's verdict, a causal mask clips the positive offsets, and the view follows the selected
// head, the result and the palette. Issue 5.
#include "analyses/offsets/offsets_view.h"

#include <cmath>

#include <QAreaSeries>
#include <QLabel>
#include <QLineSeries>
#include <QTest>
#include <QToolTip>
#include <QValueAxis>

#include "analyses/offsets/offset_chart.h"
#include "attnscope/analysis/relative_position.h"
#include "session/analysis_session.h"
#include "view_test_support.h"
#include "widget_test.h"
#include "widgets/chart_palette.h"

using namespace attnscope;
using attnscope::app::AnalysisSession;
using attnscope::app::OffsetChart;
using attnscope::app::OffsetsView;

namespace {

// Series store qreal; the core's means are double already. Exact copies, so a tight bound.
constexpr double kTol = 1e-12;

const char* const kText = "Researchers compare attention heads across layers";

using test::Loaded;

// Through the tokenizer, so BERT's [CLS] and [SEP] carry their special mark.
Loaded load(const QString& name, const forward::MaskChoice& mask = {}) {
    Loaded l;
    l.model = test::loadFixtureModel(name.toStdString());
    forward::ForwardOptions options;
    options.mask = mask;
    l.result = std::make_shared<const analysis::SentenceAnalysis>(
        analysis::analyzeText(*l.model, kText, options));
    return l;
}

analysis::RelativePositionAccumulator coreProfile(const analysis::SentenceAnalysis& r,
                                                  HeadId head) {
    analysis::RelativePositionAccumulator acc;
    acc.add(r.forward, head, analysis::specialFlags(r.tokens));
    return acc;
}

// The chart's bars against the core: same offsets (those some query may see), same heights.
void compareBars(const OffsetChart* chart, const analysis::RelativePositionAccumulator& acc) {
    std::vector<analysis::OffsetValue> expected;
    for (const analysis::OffsetValue& v : acc.offsets()) {
        if (v.allowedQueries > 0) {
            expected.push_back(v);
        }
    }
    const auto& shown = chart->shownOffsets();
    QCOMPARE(shown.size(), expected.size());
    const QList<QPointF> outline = chart->barOutline()->points();
    QCOMPARE(outline.size(), static_cast<qsizetype>(4 * expected.size()));
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const auto p = static_cast<qsizetype>(4 * i);
        QCOMPARE(shown[i].offset, expected[i].offset);
        QCOMPARE(shown[i].queries, expected[i].queries);
        QVERIFY2(std::abs(outline[p + 1].y() - expected[i].meanAttention) < kTol,
                 qPrintable(QString("offset %1: bar %2, core %3")
                                .arg(expected[i].offset)
                                .arg(outline[p + 1].y())
                                .arg(expected[i].meanAttention)));
        QCOMPARE(outline[p + 2].y(), outline[p + 1].y());
        QVERIFY(std::abs((outline[p + 1].x() + outline[p + 2].x()) / 2 - expected[i].offset) <
                1e-9);
        QCOMPARE(outline[p].y(), 0.0);
    }
}

}  // namespace

class OffsetsViewTest : public test::WidgetTest {
    Q_OBJECT

private slots:
    void emptyStateWithoutResult();
    void barsAreTheCoresNumbers_data();
    void barsAreTheCoresNumbers();
    void causalMaskClipsPositiveOffsets();
    void previousTokenHeadIsCalledPositional();
    void hoverShowsOffsetMeanAndCount();
    void followsThePalette();
    void zoomIsResetByDoubleClickAndNewResults();
};

void OffsetsViewTest::emptyStateWithoutResult() {
    test::ViewOf<OffsetsView> shown;
    auto& [session, l, view] = shown;
    QVERIFY(shown.show(900, 600));
    QVERIFY(!view.hasResult());
    QVERIFY(view.findChild<QWidget*>("offsetsPlaceholder")->isVisible());
    QCOMPARE(view.chart()->barOutline()->count(), 0);

    shown.open(load("gpt2_f32"), "gpt2_f32");
    QVERIFY(view.hasResult());
    QVERIFY(view.chart()->isVisible());
    QVERIFY(view.chart()->barOutline()->count() > 0);
    session.setResult(nullptr);
    QVERIFY(!view.hasResult());
    QCOMPARE(view.chart()->barOutline()->count(), 0);
    session.selectHead({1, 1});  // selection without a result must not crash
    QVERIFY(!view.hasResult());
}

void OffsetsViewTest::barsAreTheCoresNumbers_data() {
    test::addCheckpointRows();
}

void OffsetsViewTest::barsAreTheCoresNumbers() {
    QFETCH(QString, checkpoint);
    test::ViewOf<OffsetsView> shown(load(checkpoint), checkpoint);
    auto& [session, l, view] = shown;
    session.setResult(l.result);
    const auto& f = l.result->forward;
    for (int layer = 0; layer < f.nLayers; ++layer) {
        for (int head = 0; head < f.nHeads; ++head) {
            session.selectHead({layer, head});
            const auto acc = coreProfile(*l.result, {layer, head});
            compareBars(view.chart(), acc);
            if (QTest::currentTestFailed()) {
                QFAIL(qPrintable(QString("head %1-%2").arg(layer).arg(head)));
            }
            const analysis::PositionalVerdict v = acc.verdict();
            QCOMPARE(view.verdict().bestOffset, v.bestOffset);
            QCOMPARE(view.verdict().frequency, v.frequency);
            // The highlighted bar is r*, as high as its bar among the others.
            const QList<QPointF> best = view.chart()->bestBar()->upperSeries()->points();
            QCOMPARE(best.size(), 4);
            QVERIFY(std::abs((best[1].x() + best[2].x()) / 2 - v.bestOffset) < 1e-9);
            QVERIFY(std::abs(best[1].y() - acc.at(v.bestOffset).meanAttention) < kTol);
            // The caption states the verdict with r* and its share.
            const QString caption = view.caption()->text();
            QVERIFY2(
                caption.contains(v.positional ? "<b>Positional:</b>" : "<b>Not positional:</b>"),
                qPrintable(caption));
            QVERIFY2(caption.contains(app::offsetText(v.bestOffset)), qPrintable(caption));
            QVERIFY2(caption.contains(QString::number(std::lround(100 * v.frequency)) + "\u00a0%"),
                     qPrintable(caption));
            QVERIFY(
                view.chart()->chart()->title().contains(QString("L%1 H%2").arg(layer).arg(head)));
        }
    }
    // BERT: [CLS] and [SEP] are not counted as queries.
    if (checkpoint.startsWith("bert")) {
        QCOMPARE(view.verdict().queries, f.nTokens - 2);
        QVERIFY(view.caption()->text().contains("2 left out"));
    } else {
        QCOMPARE(view.verdict().queries, f.nTokens);
    }
}

void OffsetsViewTest::causalMaskClipsPositiveOffsets() {
    // Bidirectional BERT shows both sides; the same model under a causal mask ends at 0.
    AnalysisSession session;
    const Loaded both = test::withModel(session, load("bert_f32"), "bert_f32");
    OffsetsView view(&session);
    session.selectHead({1, 2});
    session.setResult(both.result);
    const int n = both.result->forward.nTokens;
    // Queries 1..n-2 (special ones left out) reach offsets -(n-2)..+(n-2).
    QCOMPARE(view.chart()->shownOffsets().front().offset, -(n - 2));
    QCOMPARE(view.chart()->shownOffsets().back().offset, n - 2);
    QVERIFY(!view.caption()->text().contains("hidden"));

    forward::MaskChoice causal;
    causal.kind = forward::MaskKind::Causal;
    const Loaded masked = load("bert_f32", causal);
    session.setResult(masked.result);  // what the service does after a mask change
    QCOMPARE(view.chart()->shownOffsets().back().offset, 0);
    compareBars(view.chart(), coreProfile(*masked.result, {1, 2}));
    QVERIFY(view.chart()->offsetAxis()->max() < 1.0);
    QVERIFY(view.chart()->offsetAxis()->min() < -(n - 2));
    QVERIFY2(view.caption()->text().contains("hidden"), qPrintable(view.caption()->text()));
    // The zero line spans the value axis.
    const QList<QPointF> zero = view.chart()->zeroLine()->points();
    QCOMPARE(zero.size(), 2);
    QCOMPARE(zero[0].x(), 0.0);
    QVERIFY(zero[1].y() > zero[0].y());
}

void OffsetsViewTest::previousTokenHeadIsCalledPositional() {
    // The synthetic result's head 0-0 is a previous-token head (view_test_data.cpp).
    AnalysisSession session;
    session.setModel(test::shapeOnlyModel(2, 3), "synthetic");
    OffsetsView view(&session);
    const auto result = test::syntheticAnalysis(2, 3, 40);
    session.setResult(result);
    session.selectHead({0, 0});
    const analysis::PositionalVerdict v = coreProfile(*result, {0, 0}).verdict();
    QVERIFY2(v.positional && v.bestOffset == -1, "synthetic head 0-0 is no longer positional");
    QCOMPARE(view.verdict().bestOffset, -1);
    const QString caption = view.caption()->text();
    QVERIFY2(caption.contains("<b>Positional:</b>") && caption.contains("the previous token"),
             qPrintable(caption));
    compareBars(view.chart(), coreProfile(*result, {0, 0}));

    // 512 tokens: query 0 can only attend to itself, so the share is below 1 and the caption
    // must not round it up to "100 %".
    const auto longer = test::syntheticAnalysis(2, 3, 512);
    session.setResult(longer);
    const analysis::PositionalVerdict w = coreProfile(*longer, {0, 0}).verdict();
    QVERIFY(w.frequency < 1.0 && w.frequency > 0.995);
    QVERIFY2(!view.caption()->text().contains("100\u00a0%"), qPrintable(view.caption()->text()));
    QVERIFY2(view.caption()->text().contains(
                 QString::number(std::floor(1000 * w.frequency) / 10, 'f', 1) + "\u00a0%"),
             qPrintable(view.caption()->text()));
}

void OffsetsViewTest::hoverShowsOffsetMeanAndCount() {
    test::ViewOf<OffsetsView> shown(load("gpt2_f32"), "gpt2_f32");
    auto& [session, l, view] = shown;
    QVERIFY(shown.showWithResult(1000, 600));
    const auto acc = coreProfile(*l.result, session.selectedHead());
    const analysis::OffsetValue prev = acc.at(-1);
    const QString expected = view.chart()->tooltipFor(-1);
    QVERIFY2(expected.contains(QString::number(prev.meanAttention, 'f', 4)), qPrintable(expected));
    QVERIFY2(expected.contains(QString("over %1 queries").arg(prev.queries)), qPrintable(expected));
    QVERIFY(expected.contains("the previous token"));
    QVERIFY(view.chart()->tooltipFor(1).isEmpty());  // masked for every query: not shown

    // A real mouse move over the bar of offset -1 shows that text.
    OffsetChart* chart = view.chart();
    QTRY_VERIFY(chart->chart()->plotArea().width() > 100);
    const QPointF value(-1.0, prev.meanAttention / 2);
    const QPoint pos = chart->mapFromScene(chart->chart()->mapToPosition(value, chart->bars()));
    QTest::mouseMove(chart->viewport(), pos);
    QTRY_COMPARE(QToolTip::text(), expected);
}

void OffsetsViewTest::followsThePalette() {
    test::ViewOf<OffsetsView> shown(load("gpt2_f32"), "gpt2_f32");
    auto& [session, l, view] = shown;
    session.setResult(l.result);
    QCOMPARE(view.chart()->chart()->theme(), QChart::ChartThemeLight);
    QPalette dark = view.palette();
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2d, 0x30));
    dark.setColor(QPalette::WindowText, QColor(0xe6, 0xe6, 0xe6));
    view.setPalette(dark);
    QCOMPARE(view.chart()->chart()->theme(), QChart::ChartThemeDark);
    // The theme resets series colours; the view sets its own again (sky blue on dark).
    QCOMPARE(view.chart()->bars()->brush().color().rgb(), app::okabeIto(5).rgb());
}

void OffsetsViewTest::zoomIsResetByDoubleClickAndNewResults() {
    AnalysisSession session;
    session.setModel(test::shapeOnlyModel(2, 3), "synthetic");
    OffsetsView view(&session);
    QVERIFY(test::showExposed(view, 1000, 600));
    session.setResult(test::syntheticAnalysis(2, 3, 200));
    QValueAxis* axis = view.chart()->offsetAxis();
    QCOMPARE(axis->min(), -199.6);
    QVERIFY(view.caption()->text().contains("zoom"));  // 200 offsets: the hint is shown
    // A horizontal zoom to the last tenth of the plot, as a drag would do.
    const QRectF plot = view.chart()->chart()->plotArea();
    view.chart()->chart()->zoomIn(
        QRectF(plot.left() + 0.9 * plot.width(), plot.top(), 0.1 * plot.width(), plot.height()));
    QVERIFY(axis->min() > -30);
    QTest::mouseDClick(view.chart()->viewport(), Qt::LeftButton, {}, plot.center().toPoint());
    QCOMPARE(axis->min(), -199.6);
    view.chart()->chart()->zoomIn(
        QRectF(plot.left() + 0.9 * plot.width(), plot.top(), 0.1 * plot.width(), plot.height()));
    session.setResult(test::syntheticAnalysis(2, 3, 100));
    QCOMPARE(axis->min(), -99.6);
    QVERIFY(axis->tickInterval() >= 5);  // 100 offsets at ~900 px: not one label per bar
}

QTEST_MAIN(OffsetsViewTest)
#include "offsets_view_test.moc"
