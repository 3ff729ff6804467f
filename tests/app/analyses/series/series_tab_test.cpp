// The real main window offscreen with a training series (issue 33): three fixture checkpoints
// of one Pythia shape linked as step0/step512/step4096. Opening the folder opens its last
// checkpoint; the "Training" tab's lines are the core's statistics of each checkpoint on the
// session's tokens (the induction probe on sequences drawn once for the series, plotted when
// chosen); clicking a point opens that checkpoint with that head selected, and the
// arrows step through the series without dropping it; another model drops it.
#include <cmath>

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLineSeries>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include "analyses/series/series_chart.h"
#include "analyses/series/series_document.h"
#include "analyses/series/series_view.h"
#include "attnscope/analysis/checkpoint_series.h"
#include "main_window.h"
#include "panel_test_support.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "window_test.h"

using namespace attnscope;
using namespace attnscope::app;

class SeriesTabTest : public paneltest::FreshWindowTest {
    Q_OBJECT

private slots:
    void stepsThroughTheSeries();
};

namespace {

bool linkSeries(const QTemporaryDir& dir) {
    for (const char* step : {"0", "512", "4096"}) {
        const QString target = paneltest::checkpointDir(
            QStringLiteral("pythia_series_step%1_f32").arg(step).toUtf8().constData());
        if (!QFile::link(target, dir.filePath(QStringLiteral("step") + step))) {
            return false;
        }
    }
    return true;
}

}  // namespace

void SeriesTabTest::stepsThroughTheSeries() {
    auto* tabs = m_window->findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    auto* view = m_window->findChild<SeriesView*>(QStringLiteral("seriesView"));
    QVERIFY(tabs && view);
    QCOMPARE(tabs->tabText(tabs->indexOf(view)), QString("Training"));
    QTemporaryDir dir;
    QVERIFY(linkSeries(dir));
    AnalysisSession* session = m_window->session();
    QSignalSpy loaded(m_window->service(), &ComputeService::loadFinished);
    QVERIFY(view->openSeries(dir.path()));
    QTRY_VERIFY_WITH_TIMEOUT(session->model() != nullptr, 20000);
    auto& document = session->document<SeriesDocument>();
    QCOMPARE(document.current(), 2);  // the last checkpoint
    QVERIFY(paneltest::typeSentence(*m_window, QStringLiteral("the cat sat on the mat")));
    tabs->setCurrentWidget(view);
    QTRY_VERIFY_WITH_TIMEOUT(document.statistics() != nullptr, 30000);
    const auto stats = document.statistics();
    QCOMPARE(stats->tokenIds, session->cleanResult()->forward.tokenIds);
    const int heads = session->layerCount() * session->headCount();
    QCOMPARE(static_cast<int>(view->chart()->headLines().size()), heads);
    // Each checkpoint's numbers are the core's on the same ids, its induction probe on the
    // sequences drawn once from the first checkpoint.
    forward::ForwardOptions options;
    const auto probe = analysis::drawInductionProbe(
        *model::loadModel(document.checkpoints().front().path), {stats->tokenIds});
    QCOMPARE(probe.sequences.size(), 4u);  // the survey's default repeats
    std::vector<std::vector<analysis::HeadTrainingStats>> cores;
    for (std::size_t k = 0; k < document.checkpoints().size(); ++k) {
        const auto m = model::loadModel(document.checkpoints()[k].path);
        cores.push_back(analysis::trainingStats(*m, {stats->tokenIds}, options, probe));
        const auto& core = cores.back();
        for (int h = 0; h < heads; ++h) {
            QCOMPARE(stats->byCheckpoint[k][h].meanEntropy, core[h].meanEntropy);
            QCOMPARE(stats->byCheckpoint[k][h].prevTokenScore, core[h].prevTokenScore);
            QVERIFY(std::isfinite(core[h].inductionProbe));  // a causal model
            QCOMPARE(stats->byCheckpoint[k][h].inductionProbe, core[h].inductionProbe);
            QCOMPARE(view->chart()->headLines()[h]->at(static_cast<int>(k)).y(),
                     double(core[h].meanEntropy));
        }
    }
    // The induction probe is plotted like the other statistics.
    auto* metric = m_window->findChild<QComboBox*>(QStringLiteral("seriesMetric"));
    QVERIFY(metric);
    const int induction = metric->findText(QStringLiteral("induction probe"));
    QCOMPARE(induction, static_cast<int>(SeriesView::Metric::InductionProbe));
    metric->setCurrentIndex(induction);
    for (std::size_t k = 0; k < cores.size(); ++k) {
        for (int h = 0; h < heads; ++h) {
            QCOMPARE(view->chart()->headLines()[h]->at(static_cast<int>(k)).y(),
                     double(cores[k][h].inductionProbe));
        }
    }
    metric->setCurrentIndex(0);

    // A point of checkpoint 0: that checkpoint opens with the head selected; the series stays.
    const HeadId head{1, 2};
    QLineSeries* line = view->chart()->headLines()[headIndex(head, session->headCount())];
    emit line->clicked(line->at(0));
    QCOMPARE(session->selectedHead(), head);
    QTRY_COMPARE_WITH_TIMEOUT(document.current(), 0, 20000);
    QCOMPARE(document.checkpoints().size(), 3u);
    QCOMPARE(session->selectedHead(), head);
    auto* next = m_window->findChild<QPushButton*>(QStringLiteral("seriesNext"));
    auto* prev = m_window->findChild<QPushButton*>(QStringLiteral("seriesPrev"));
    QTRY_VERIFY_WITH_TIMEOUT(next->isEnabled() && !prev->isEnabled(), 20000);
    next->click();
    QTRY_COMPARE_WITH_TIMEOUT(document.current(), 1, 20000);
    QVERIFY(document.statistics() != nullptr);  // the same ids: nothing recomputed

    // Another model is no step of the series: it goes.
    QVERIFY(paneltest::openModelIn(*m_window, paneltest::checkpointDir("gpt2_f32"), 20000));
    QVERIFY(document.checkpoints().empty());
}

QTEST_MAIN(SeriesTabTest)
#include "series_tab_test.moc"
