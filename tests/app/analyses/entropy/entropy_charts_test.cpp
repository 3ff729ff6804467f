// EntropyChartsView against real forward passes of the generated GPT-2 (causal) and BERT
// checkpoints: the per-head points are the core's statistics, the reference line is the
// uniform maximum, the per-query chart follows the selection and leaves fully masked rows out,
// clicking a point selects its head, and charts export to PNG and SVG. Issue 3.
#include "analyses/entropy/entropy_charts.h"

#include <cmath>
#include <numeric>

#include <QCategoryAxis>
#include <QFile>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>

#include "analyses/entropy/head_metric_chart.h"
#include "analyses/entropy/query_entropy_chart.h"
#include "attnscope/analysis/head_stats.h"
#include "session/analysis_session.h"
#include "view_test_support.h"
#include "widget_test.h"

using namespace attnscope;
using attnscope::app::AnalysisSession;
using attnscope::app::EntropyChartsView;
using attnscope::app::HeadMetricChart;
using attnscope::app::QueryEntropyChart;

namespace {

// Series store qreal; the core stores float. Exact after widening, so a tight bound suffices.
constexpr double kTol = 1e-6;

using test::kBertIds;
using test::Loaded;

float meanUniformOverRows(const analysis::SentenceAnalysis& r) {
    const std::vector<float> u = analysis::uniformEntropy(r.forward);
    double sum = 0;
    int rows = 0;
    for (int q = 0; q < r.forward.nTokens; ++q) {
        const auto& m = r.forward.fullyMaskedRows;
        if (std::find(m.begin(), m.end(), q) == m.end()) {
            sum += u[static_cast<std::size_t>(q)];
            ++rows;
        }
    }
    return static_cast<float>(sum / rows);
}

}  // namespace

class EntropyChartsTest : public test::WidgetTest {
    Q_OBJECT

private slots:
    void emptyStateWithoutResult();
    void headPointsAreTheStats_data();
    void headPointsAreTheStats();
    void queryChartFollowsSelection();
    void fullyMaskedRowsAreGaps();
    void clickingAPointSelectsItsHead();
    void selectionIsHighlighted();
    void manyHeadsAndTokensReuseSeries();
    void saveChartWritesPngAndSvg();
    void saveChartReportsFailures();
};

void EntropyChartsTest::emptyStateWithoutResult() {
    test::ViewOf<EntropyChartsView> charts;
    auto& [session, l, view] = charts;
    QVERIFY(charts.show(900, 600));
    QVERIFY(!view.hasResult());
    QVERIFY(view.findChild<QWidget*>("entropyChartsPlaceholder")->isVisible());
    QCOMPARE(view.headEntropyChart()->pointSeries()->count(), 0);

    charts.open(test::loadIds("gpt2_f32"), "gpt2_f32");
    QVERIFY(view.hasResult());
    QVERIFY(view.headEntropyChart()->isVisible());
    session.setResult(nullptr);  // e.g. the text was cleared
    QVERIFY(!view.hasResult());
    QCOMPARE(view.headEntropyChart()->pointSeries()->count(), 0);
    QCOMPARE(view.queryEntropyChart()->pointSeries()->count(), 0);
    session.selectHead({1, 1});  // selection without a result must not crash
    QVERIFY(!view.hasResult());
}

void EntropyChartsTest::headPointsAreTheStats_data() {
    test::addCheckpointRows();
}

void EntropyChartsTest::headPointsAreTheStats() {
    QFETCH(QString, checkpoint);
    test::ViewOf<EntropyChartsView> charts(checkpoint);
    auto& [session, l, view] = charts;
    session.setResult(l.result);

    const auto& f = l.result->forward;
    const QList<QPointF> entropy = view.headEntropyChart()->pointSeries()->points();
    const QList<QPointF> logits = view.maxLogitChart()->pointSeries()->points();
    QCOMPARE(entropy.size(), f.nLayers * f.nHeads);
    QCOMPARE(logits.size(), f.nLayers * f.nHeads);
    for (int i = 0; i < entropy.size(); ++i) {
        const analysis::HeadStats& s = l.result->stats[static_cast<std::size_t>(i)];
        QCOMPARE(entropy[i].x(), view.headEntropyChart()->xOf(s.head));
        QVERIFY2(
            std::abs(entropy[i].y() - s.meanEntropy) < kTol,
            qPrintable(QString("head %1: %2 vs %3").arg(i).arg(entropy[i].y()).arg(s.meanEntropy)));
        QVERIFY(std::abs(logits[i].y() - s.maxAbsLogit) < kTol);
    }
    // The reference: mean over query rows of ln(allowed keys), spanning the whole x range.
    const QList<QPointF> ref = view.headEntropyChart()->referenceSeries()->points();
    QCOMPARE(ref.size(), 2);
    const std::vector<float> u = analysis::uniformEntropy(f);
    const double meanU = std::accumulate(u.begin(), u.end(), 0.0) / static_cast<double>(u.size());
    QVERIFY(std::abs(ref[0].y() - meanU) < 1e-5);
    QCOMPARE(ref[1].y(), ref[0].y());
    QVERIFY(ref[0].x() <= 0 && ref[1].x() >= f.nLayers * f.nHeads - 1);
    QVERIFY(view.headEntropyChart()->referenceSeries()->isVisible());
    QVERIFY(!view.maxLogitChart()->referenceSeries()->isVisible());
    // One axis band per layer.
    auto* xAxis = qobject_cast<QCategoryAxis*>(
        view.headEntropyChart()->chart()->axes(Qt::Horizontal).first());
    QVERIFY(xAxis);
    QCOMPARE(xAxis->count(), f.nLayers);
    QCOMPARE(xAxis->categoriesLabels().first(), QString("L0"));
}

void EntropyChartsTest::queryChartFollowsSelection() {
    test::ViewOf<EntropyChartsView> charts("gpt2_f32");
    QVERIFY(charts.showWithResult(1000, 700));
    auto& [session, l, view] = charts;
    QueryEntropyChart* chart = view.queryEntropyChart();

    for (const HeadId head : {HeadId{0, 0}, HeadId{1, 2}, HeadId{0, 1}}) {
        session.selectHead(head);
        const auto rows = l.result->forward.entropyOf(head);
        const QList<QPointF> points = chart->pointSeries()->points();
        QCOMPARE(points.size(), l.result->forward.nTokens);
        for (int q = 0; q < points.size(); ++q) {
            QCOMPARE(points[q].x(), double(q));
            QVERIFY(std::abs(points[q].y() - rows[q]) < kTol);
        }
        QVERIFY(
            chart->chart()->title().contains(QString("L%1 H%2").arg(head.layer).arg(head.head)));
        // Causal: the reference is ln(q + 1).
        QCOMPARE(chart->runCount(), 1);
        const QList<QPointF> ref = chart->referenceRun(0)->points();
        QCOMPARE(ref.size(), points.size());
        for (int q = 0; q < ref.size(); ++q) {
            QVERIFY(std::abs(ref[q].y() - std::log(q + 1.0)) < 1e-6);
        }
    }
    // Token labels on the axis (short sentence: every token labelled).
    QTRY_COMPARE(chart->labelStep(), 1);
    auto* xAxis = qobject_cast<QCategoryAxis*>(chart->chart()->axes(Qt::Horizontal).first());
    QCOMPARE(xAxis->count(), l.result->forward.nTokens);
    QVERIFY(xAxis->categoriesLabels().first().startsWith(
        QString::fromStdString(l.result->label(0)).left(5)));
}

void EntropyChartsTest::fullyMaskedRowsAreGaps() {
    // A custom mask whose row 3 allows nothing: the row must be a gap, not a zero.
    const auto model = test::loadFixtureModel("bert_f32");
    forward::MaskChoice mask;
    mask.kind = forward::MaskKind::Custom;
    const int n = static_cast<int>(kBertIds.size());
    mask.custom = BoolMatrix::Ones(n, n);
    mask.custom->row(3).setZero();
    const auto result = test::analyze(*model, kBertIds, mask);
    QCOMPARE(result->forward.fullyMaskedRows, std::vector<int>{3});

    AnalysisSession session;
    session.setModel(model, "bert_f32");
    EntropyChartsView view(&session);
    session.setResult(result);
    session.selectHead({1, 0});
    QueryEntropyChart* chart = view.queryEntropyChart();
    const QList<QPointF> points = chart->pointSeries()->points();
    QCOMPARE(points.size(), n - 1);
    for (const QPointF& p : points) {
        QVERIFY(p.x() != 3.0);
    }
    QCOMPARE(chart->runCount(), 2);  // rows 0-2 and 4-6
    QCOMPARE(chart->entropyRun(0)->points().last().x(), 2.0);
    QCOMPARE(chart->entropyRun(1)->points().first().x(), 4.0);
    QVERIFY(chart->chart()->title().contains("fully masked"));
    // The per-head reference leaves the masked row out too.
    const double ref = view.headEntropyChart()->referenceSeries()->points().first().y();
    QVERIFY(std::abs(ref - meanUniformOverRows(*result)) < 1e-5);

    // Back to an unmasked result: the extra run is emptied, not left behind.
    session.setResult(test::analyze(*model, kBertIds));
    QCOMPARE(chart->runCount(), 1);
    QCOMPARE(chart->entropyRun(1)->count(), 0);
    QCOMPARE(chart->pointSeries()->count(), n);
}

void EntropyChartsTest::clickingAPointSelectsItsHead() {
    test::ViewOf<EntropyChartsView> charts("gpt2_f32");
    QVERIFY(charts.showWithResult(1000, 700));
    auto& [session, l, view] = charts;
    QSignalSpy spy(&session, &AnalysisSession::selectedHeadChanged);

    // A real mouse click on the point of head (1, 1) in chart (a).
    HeadMetricChart* chart = view.headEntropyChart();
    const HeadId target{1, 1};
    const QPointF value(chart->xOf(target),
                        l.result->stats[static_cast<std::size_t>(chart->xOf(target))].meanEntropy);
    QTRY_VERIFY(chart->chart()->plotArea().width() > 100);
    const QPoint pos =
        chart->mapFromScene(chart->chart()->mapToPosition(value, chart->pointSeries()));
    QTest::mouseClick(chart->viewport(), Qt::LeftButton, {}, pos);
    QTRY_COMPARE(spy.count(), 1);
    QCOMPARE(session.selectedHead(), target);
    QCOMPARE(spy.first().first().value<HeadId>(), target);

    // The series' clicked signal in chart (c) selects too.
    emit view.maxLogitChart()->pointSeries()->clicked(
        QPointF(view.maxLogitChart()->xOf({0, 2}), 1.0));
    QCOMPARE(spy.count(), 2);
    QCOMPARE(session.selectedHead(), (HeadId{0, 2}));
}

void EntropyChartsTest::selectionIsHighlighted() {
    test::ViewOf<EntropyChartsView> charts("bert_f32");
    auto& [session, l, view] = charts;
    session.setResult(l.result);
    session.selectHead({1, 2});
    const QList<QPointF> sel = view.headEntropyChart()->selectedSeries()->points();
    QCOMPARE(sel.size(), 1);
    QCOMPARE(sel[0].x(), 5.0);
    QVERIFY(std::abs(sel[0].y() - l.result->stats[5].meanEntropy) < kTol);
    QCOMPARE(view.maxLogitChart()->selectedSeries()->points().first().x(), 5.0);
    QVERIFY(view.headEntropyChart()->chart()->title().contains("L1 H2"));
}

void EntropyChartsTest::manyHeadsAndTokensReuseSeries() {
    AnalysisSession session;
    session.setModel(test::shapeOnlyModel(12, 12), "synthetic");
    EntropyChartsView view(&session);
    QVERIFY(test::showExposed(view, 1000, 700));
    QScatterSeries* points = view.headEntropyChart()->pointSeries();
    QScatterSeries* rows = view.queryEntropyChart()->pointSeries();
    session.setResult(test::syntheticAnalysis(12, 12, 512));
    QCOMPARE(points->count(), 144);
    QCOMPARE(rows->count(), 512);
    session.selectHead({11, 11});
    session.setResult(test::syntheticAnalysis(12, 12, 300, 2));
    // Same series objects, refilled in place.
    QCOMPARE(view.headEntropyChart()->pointSeries(), points);
    QCOMPARE(view.queryEntropyChart()->pointSeries(), rows);
    QCOMPARE(rows->count(), 300);
    QCOMPARE(view.headEntropyChart()->selectedSeries()->points().first().x(), 143.0);
    // 300 tokens cannot all be labelled at 1000 px: every k-th one is.
    QTRY_VERIFY(view.queryEntropyChart()->labelStep() > 1);
    auto* xAxis = qobject_cast<QCategoryAxis*>(
        view.queryEntropyChart()->chart()->axes(Qt::Horizontal).first());
    QVERIFY(xAxis->count() < 100);
    QCOMPARE(
        qobject_cast<QCategoryAxis*>(view.headEntropyChart()->chart()->axes(Qt::Horizontal).first())
            ->count(),
        12);
}

void EntropyChartsTest::saveChartWritesPngAndSvg() {
    test::ViewOf<EntropyChartsView> charts("gpt2_f32");
    QVERIFY(charts.showWithResult(900, 600));
    auto& [session, l, view] = charts;
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (const auto which :
         {EntropyChartsView::Chart::HeadEntropy, EntropyChartsView::Chart::QueryEntropy,
          EntropyChartsView::Chart::MaxLogit}) {
        const QString stem = dir.filePath(QString("chart%1").arg(static_cast<int>(which)));
        QString error;
        QVERIFY2(view.saveChart(which, stem + ".png", &error), qPrintable(error));
        QImage png(stem + ".png");
        QVERIFY(!png.isNull());
        QVERIFY(png.width() > 200 && png.height() > 100);
        QVERIFY2(view.saveChart(which, stem + ".svg", &error), qPrintable(error));
        QFile svg(stem + ".svg");
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QByteArray text = svg.readAll();
        QVERIFY(text.contains("<svg"));
        QVERIFY(text.contains("entropy") || text.contains("logit"));
    }
}

void EntropyChartsTest::saveChartReportsFailures() {
    test::ViewOf<EntropyChartsView> charts("gpt2_f32");
    auto& [session, l, view] = charts;
    QString error;
    QVERIFY(!view.saveChart(EntropyChartsView::Chart::HeadEntropy, "/tmp/x.png", &error));
    QVERIFY(error.contains("no result"));  // nothing to export yet

    session.setResult(l.result);
    QTemporaryDir dir;
    const QString missing = dir.filePath("no/such/folder/chart.png");
    QVERIFY(!view.saveChart(EntropyChartsView::Chart::HeadEntropy, missing, &error));
    QVERIFY2(error.startsWith(missing), qPrintable(error));
    const QString badSuffix = dir.filePath("chart.xyz");
    QVERIFY(!view.saveChart(EntropyChartsView::Chart::HeadEntropy, badSuffix, &error));
    QVERIFY(error.contains("unsupported"));
    QVERIFY(!QFile::exists(badSuffix));
}

QTEST_MAIN(EntropyChartsTest)
#include "entropy_charts_test.moc"
