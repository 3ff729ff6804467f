// The main window with a memory budget too small for a sentence's maps (issue 6): the pass
// keeps summaries and previews, every view still shows the exact maps (recomputed by the core
// for the head on screen), and exports that need every map say why they cannot run.
#include <QLineEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include "attnscope/forward/forward_pass.h"
#include "main_window.h"
#include "panel_test_support.h"
#include "render/heatmap_image.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "views/head_grid_model.h"
#include "views/head_grid_view.h"
#include "views/heatmap_widget.h"
#include "widgets/message_bar.h"
#include "window_test.h"

using namespace attnscope;
using namespace attnscope::app;

class MapBudgetWindowTest : public paneltest::FreshWindowTest {
    Q_OBJECT

private slots:
    void viewsShowExactMapsWithoutRecordedMaps();
};

void MapBudgetWindowTest::viewsShowExactMapsWithoutRecordedMaps() {
    AnalysisSession* session = m_window->session();
    session->setMapBudgetBytes(0);  // nothing fits: summaries and previews only
    QVERIFY(paneltest::openModelIn(*m_window, paneltest::checkpointDir("gpt2_f32"), 20000));
    QVERIFY(paneltest::typeSentence(*m_window, QStringLiteral("the quick brown fox jumps")));
    const auto& lean = session->result()->forward;
    QVERIFY(!lean.mapsRecorded);
    QCOMPARE(lean.mapBytes(), std::size_t{0});
    const forward::ForwardResult full = forward::runForward(*session->model(), {lean.tokenIds, {}});

    // The grid draws every head from its preview.
    auto* grid = m_window->findChild<HeadGridView*>(QStringLiteral("headGrid"));
    auto* model = qobject_cast<HeadGridModel*>(grid->model());
    QCOMPARE(model->columnCount(), full.nHeads);
    QVERIFY(!model->index(1, 2).data(Qt::DecorationRole).value<QImage>().isNull());

    // The head view shows the exact map: the same image as from a full recording.
    session->selectHead({1, 2});
    auto* heatmap = m_window->findChild<HeatmapWidget*>(QStringLiteral("headHeatmap"));
    const QImage expected =
        render::heatmapImage(full.attention({1, 2}), &full.allowed, session->heatmapStyle());
    QTRY_COMPARE(heatmap->image(), expected);
    // Any head: recomputed on the service's worker, then kept by the session.
    QTRY_VERIFY_WITH_TIMEOUT(session->headRecords().get({0, 1}) != nullptr, 20000);
    QCOMPARE(session->headRecords().get({0, 1})->probs, Matrix(full.attention({0, 1})));

    // The other tabs draw from the recomputed maps without complaint.
    auto* tabs = m_window->findChild<QTabWidget*>();
    for (int i = 0; i < tabs->count(); ++i) {
        tabs->setCurrentIndex(i);
        QTest::qWait(20);
    }
    auto* bar = m_window->findChild<MessageBar*>(QStringLiteral("messageBar"));
    QVERIFY2(bar->text().isEmpty(), qPrintable(bar->text()));

    // Exporting every map needs them all: a clear message, nothing written.
    QTemporaryDir dir;
    paneltest::expectHdf5Export(*m_window, dir.filePath(QStringLiteral("all.h5")), false);
    QVERIFY(bar->text().contains(QStringLiteral("memory budget")));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("all.h5"))));
}

QTEST_MAIN(MapBudgetWindowTest)
#include "map_budget_window_test.moc"
