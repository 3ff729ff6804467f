// Issue 15, the heatmap's mouse and keys: a drag that pans is not also a click (it toggled a
// mask cell or moved the Predictions row), and zoom and head-stepping keys work while the
// head view is showing even when the sentence field has the focus, which keeps its own keys.
// Issue 30: a zoomed map shows scroll bars over no cell, and the click that focuses the head
// map (to use its plain keys) does not move the Predictions row.
#include <cmath>

#include <QApplication>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>
#include <QWheelEvent>

#include "main_window.h"
#include "panel_test_support.h"
#include "session/analysis_session.h"
#include "views/head_view.h"
#include "views/heatmap_widget.h"
#include "window_test.h"

using namespace attnscope;
using namespace attnscope::app;

namespace {

constexpr int kTimeoutMs = 20000;

// Shows `window` at 1400 x 900, active (the keys under test go to the focused widget), with the
// GPT-2 test checkpoint open; false when either did not happen in time.
bool showWithGpt2(MainWindow& window) {
    paneltest::showWindow(window);
    window.activateWindow();
    return QTest::qWaitForWindowActive(&window) &&
           paneltest::openModelIn(
               window, QStringLiteral(ATTNSCOPE_FIXTURE_DIR "/checkpoints/gpt2_f32"), kTimeoutMs);
}

QImage grayCells(int n) {
    QImage image(n, n, QImage::Format_RGB32);
    for (int r = 0; r < n; ++r) {
        for (int c = 0; c < n; ++c) {
            image.setPixel(c, r, qRgb(r * 30, c * 30, 100));
        }
    }
    return image;
}

// Shows `map` alone at 500 x 420 with 6 x 6 cells labelled "a" to "f"; false when it was not
// exposed.
bool showSixCells(HeatmapWidget& map) {
    map.resize(500, 420);
    const QStringList labels = {"a", "b", "c", "d", "e", "f"};
    map.setMap(grayCells(6), {}, labels, labels, std::nullopt);
    map.show();
    return QTest::qWaitForWindowExposed(&map);
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

class ViewInteractionTest : public paneltest::WindowTest {
    Q_OBJECT

private slots:
    void dragPansWithoutClicking();
    void keysWorkWhileTypingInTheSentenceField();
    void zoomedMapShowsScrollBars();
    void focusingClickKeepsThePredictionRow();
};

void ViewInteractionTest::dragPansWithoutClicking() {
    HeatmapWidget map;
    QVERIFY(showSixCells(map));
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
    QVERIFY(showWithGpt2(window));
    AnalysisSession* session = window.session();
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

// Zoomed, the map gave no sign of the rows and columns out of view (issue 30).
void ViewInteractionTest::zoomedMapShowsScrollBars() {
    HeatmapWidget map;
    QVERIFY(showSixCells(map));
    const QScrollBar* h = map.horizontalScrollBar();
    const QScrollBar* v = map.verticalScrollBar();
    QVERIFY(!h->isVisible() && !v->isVisible());  // the whole map shows

    // Cells grow exactly by the zoom: the scroll bars' strips never make them smaller (at 1.02
    // they took 16 px from a cell size fitted to the viewport).
    const double unzoomed = map.cellRect(0, 0).width();
    map.setZoom(1.02);
    QVERIFY2(std::abs(map.cellRect(0, 0).width() - 1.02 * unzoomed) < 1e-9,
             qPrintable(QStringLiteral("cell %1 px at 1.02, %2 px at 1")
                            .arg(map.cellRect(0, 0).width())
                            .arg(unzoomed)));

    map.setZoom(3.0);
    QVERIFY(h->isVisible() && v->isVisible());
    QVERIFY(h->maximum() > 0 && v->maximum() > 0);
    QCOMPARE(v->value(), 0);
    // The bars follow a pan by the wheel, and moving a bar pans the map.
    QWheelEvent wheel(QPointF(250, 250), map.mapToGlobal(QPointF(250, 250)), {}, {0, -240},
                      Qt::NoButton, {}, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&map, &wheel);
    QVERIFY(v->value() > 0);
    const_cast<QScrollBar*>(v)->setValue(v->maximum());
    const_cast<QScrollBar*>(h)->setValue(h->maximum());
    // At the far end the last cell lies whole beside the bars, none under them.
    const QRectF last = map.cellRect(5, 5);
    QVERIFY2(last.right() <= v->geometry().left() + 1 && last.bottom() <= h->geometry().top() + 1,
             qPrintable(QStringLiteral("cell (%1, %2) to (%3, %4), bars at x %5, y %6")
                            .arg(last.left())
                            .arg(last.top())
                            .arg(last.right())
                            .arg(last.bottom())
                            .arg(v->geometry().left())
                            .arg(h->geometry().top())));
    QVERIFY(map.cellAt(last.center()).has_value());
    map.resetZoom();
    QVERIFY(!h->isVisible() && !v->isVisible());
}

// The README says to click the map to use its plain keys; that click moved the Predictions row.
void ViewInteractionTest::focusingClickKeepsThePredictionRow() {
    MainWindow window;
    QVERIFY(showWithGpt2(window));
    AnalysisSession* session = window.session();
    auto* edit = window.findChild<QLineEdit*>(QStringLiteral("sentenceEdit"));
    edit->setText(QStringLiteral("one two three four"));
    auto* heatmap = window.findChild<HeatmapWidget*>(QStringLiteral("headHeatmap"));
    QTRY_VERIFY_WITH_TIMEOUT(session->result() && !heatmap->image().isNull(), kTimeoutMs);
    edit->setFocus();
    const int before = session->predictionPosition();
    QVERIFY(before != 1);
    const QPoint row1 = heatmap->cellRect(1, 0).center().toPoint();
    QTest::mouseClick(heatmap, Qt::LeftButton, {}, row1);
    QVERIFY(heatmap->hasFocus());
    QCOMPARE(session->selectedToken(), -1);
    QCOMPARE(session->predictionPosition(), before);
    // Focused, the plain keys work and a click picks the row.
    QTest::keyClick(heatmap, Qt::Key_Plus);
    QVERIFY(heatmap->zoom() > 1.0);
    QTest::keyClick(heatmap, Qt::Key_0);
    QTest::mouseClick(heatmap, Qt::LeftButton, {}, row1);
    QCOMPARE(session->selectedToken(), 1);
    QCOMPARE(session->predictionPosition(), 1);

    // A press on a zoomed map's scroll bar focuses the map too (the bar takes no focus) but is
    // no focusing click of the map's own: the next click on a cell picks its row.
    edit->setFocus();
    heatmap->setZoom(3.0);
    const QScrollBar* bar = heatmap->verticalScrollBar();
    QVERIFY(bar->isVisible());
    QTest::mouseClick(const_cast<QScrollBar*>(bar), Qt::LeftButton, {},
                      QPoint(bar->width() / 2, bar->height() - 4));
    QVERIFY(heatmap->hasFocus());
    QTest::qWait(0);
    std::optional<QPoint> other;  // a visible cell of another row than the one picked
    for (int r = 0; r < 4 && !other; ++r) {
        const QPoint at = heatmap->cellRect(r, 0).center().toPoint();
        const auto cell = heatmap->cellAt(at);
        if (r != session->predictionPosition() && cell && cell->first == r &&
            !bar->geometry().contains(at)) {
            other = at;
        }
    }
    QVERIFY(other.has_value());
    const int row = heatmap->cellAt(*other)->first;
    QTest::mouseClick(heatmap, Qt::LeftButton, {}, *other);
    QCOMPARE(session->predictionPosition(), row);
}

QTEST_MAIN(ViewInteractionTest)
#include "view_interaction_test.moc"
