// Issue 15, the heatmap's mouse and keys: a drag that pans is not also a click (it toggled a
// mask cell or moved the Predictions row), and zoom and head-stepping keys work while the
// head view is showing even when the sentence field has the focus, which keeps its own keys.
#include <QApplication>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>

#include "main_window.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "views/head_view.h"
#include "views/heatmap_widget.h"

using namespace attnscope;
using namespace attnscope::app;

namespace {

constexpr int kTimeoutMs = 20000;

QImage grayCells(int n) {
    QImage image(n, n, QImage::Format_RGB32);
    for (int r = 0; r < n; ++r) {
        for (int c = 0; c < n; ++c) {
            image.setPixel(c, r, qRgb(r * 30, c * 30, 100));
        }
    }
    return image;
}

// Press at `from`, move to `to` in small steps with the button held, release there.
void drag(QWidget* w, QPoint from, QPoint to) {
    QTest::mousePress(w, Qt::LeftButton, {}, from);
    for (int i = 1; i <= 8; ++i) {
        QTest::mouseMove(w, from + (to - from) * i / 8);
    }
    QTest::mouseRelease(w, Qt::LeftButton, {}, to);
}

}  // namespace

class ViewInteractionTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void dragPansWithoutClicking();
    void keysWorkWhileTypingInTheSentenceField();
};

void ViewInteractionTest::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("AttnScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("AttnScopeViewInteractionTest"));
}

void ViewInteractionTest::dragPansWithoutClicking() {
    HeatmapWidget map;
    map.resize(500, 420);
    const QStringList labels = {"a", "b", "c", "d", "e", "f"};
    map.setMap(grayCells(6), {}, labels, labels, std::nullopt);
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));
    QSignalSpy clicked(&map, &HeatmapWidget::cellClicked);
    const int far = 4 * QApplication::startDragDistance();

    // Zoomed in, a drag pans the map and clicks nothing.
    map.setZoom(3.0);
    const QRectF before = map.cellRect(1, 1);
    const QPoint start = before.center().toPoint();
    drag(&map, start, start - QPoint(far, far));
    QCOMPARE(clicked.count(), 0);
    QVERIFY2(map.cellRect(1, 1).left() < before.left() - far / 2, "the drag did not pan");

    // At full view there is nothing to pan, and a drag is still no click.
    map.setZoom(1.0);
    const QPoint cell = map.cellRect(2, 3).center().toPoint();
    drag(&map, cell, cell + QPoint(far, 0));
    QCOMPARE(clicked.count(), 0);

    // A press and release in place (a jitter below the drag distance included) is a click on
    // the pressed cell.
    drag(&map, cell, cell + QPoint(QApplication::startDragDistance() / 3, 0));
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.at(0).at(0).toInt(), 2);
    QCOMPARE(clicked.at(0).at(1).toInt(), 3);
}

void ViewInteractionTest::keysWorkWhileTypingInTheSentenceField() {
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    AnalysisSession* session = window.session();
    QSignalSpy loaded(window.service(), &ComputeService::loadFinished);
    window.openModel(QStringLiteral(ATTNSCOPE_FIXTURE_DIR "/checkpoints/gpt2_f32"));
    QVERIFY(loaded.wait(kTimeoutMs));
    auto* tabs = window.findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    auto* headView = window.findChild<HeadView*>(QStringLiteral("headView"));
    tabs->setCurrentWidget(headView);
    auto* heatmap = window.findChild<HeatmapWidget*>(QStringLiteral("headHeatmap"));
    auto* edit = window.findChild<QLineEdit*>(QStringLiteral("sentenceEdit"));
    edit->setFocus();
    edit->clear();
    // Plain keys belong to the sentence field.
    QTest::keyClicks(edit, QStringLiteral("a+b-c"));
    QTest::keyClick(edit, Qt::Key_Left);
    QTest::keyClick(edit, Qt::Key_Right);
    QTest::keyClick(edit, Qt::Key_Plus);
    QCOMPARE(edit->text(), QStringLiteral("a+b-c+"));
    QTRY_VERIFY_WITH_TIMEOUT(session->result() && session->result()->text == "a+b-c+", kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(!heatmap->image().isNull(), kTimeoutMs);
    QVERIFY(edit->hasFocus());
    QCOMPARE(heatmap->zoom(), 1.0);

    // With a modifier they reach the head view, and the sentence stays as it was.
    QTest::keyClick(edit, Qt::Key_Plus, Qt::ControlModifier);
    QVERIFY2(heatmap->zoom() > 1.0, "Ctrl++ in the sentence field did not zoom the head");
    QTest::keyClick(edit, Qt::Key_Equal, Qt::ControlModifier);
    const double zoomed = heatmap->zoom();
    QVERIFY(zoomed > 1.3);
    QTest::keyClick(edit, Qt::Key_Minus, Qt::ControlModifier);
    QVERIFY(heatmap->zoom() < zoomed);
    QTest::keyClick(edit, Qt::Key_0, Qt::ControlModifier);
    QCOMPARE(heatmap->zoom(), 1.0);
    session->selectHead({0, 0});
    QTest::keyClick(edit, Qt::Key_Right, Qt::AltModifier);
    QCOMPARE(session->selectedHead(), (HeadId{0, 1}));
    QTest::keyClick(edit, Qt::Key_PageDown, Qt::AltModifier);
    QCOMPARE(session->selectedHead(), (HeadId{1, 1}));
    QTest::keyClick(edit, Qt::Key_Left, Qt::AltModifier);
    QTest::keyClick(edit, Qt::Key_PageUp, Qt::AltModifier);
    QCOMPARE(session->selectedHead(), (HeadId{0, 0}));
    QCOMPARE(edit->text(), QStringLiteral("a+b-c+"));
    QVERIFY(edit->hasFocus());
    QVERIFY2(heatmap->toolTip().contains(QStringLiteral("Ctrl++")), "the keys are not told");

    // Only while the head view shows: on another tab the keys do nothing to it.
    tabs->setCurrentIndex(tabs->indexOf(headView) + 1);
    QTest::keyClick(edit, Qt::Key_Plus, Qt::ControlModifier);
    QTest::keyClick(edit, Qt::Key_Right, Qt::AltModifier);
    QCOMPARE(heatmap->zoom(), 1.0);
    QCOMPARE(session->selectedHead(), (HeadId{0, 0}));
}

QTEST_MAIN(ViewInteractionTest)
#include "view_interaction_test.moc"
