// Issue 15: the window's layout on a new user's screens. Docks cannot be squeezed below what
// their content needs, View ▸ Reset layout brings back the first-run arrangement, the analysis
// views get most of the height, and a 1024 × 700 screen shows every control whole.
#include "settings/window_layout.h"

#include <QAbstractButton>
#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTest>

#include "main_window.h"
#include "panel_test_support.h"
#include "panels/prediction_panel.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "session/default_model.h"
#include "settings/app_settings.h"
#include "views/head_grid_view.h"

namespace attnscope::app {

namespace {

const QString kMaskSentence = QStringLiteral("The keys to the cabinet are on the [MASK].");

QDockWidget* dock(const MainWindow& w, const char* name) {
    return w.findChild<QDockWidget*>(QString::fromLatin1(name));
}

// What a dock looks like, for comparing layouts.
struct DockPlace {
    Qt::DockWidgetArea area;
    bool hidden;
    bool floating;
    QSize size;
};

DockPlace placeOf(const MainWindow& w, QDockWidget* d) {
    return {w.dockWidgetArea(d), d->isHidden(), d->isFloating(), d->size()};
}

QString describe(const QWidget* w) {
    return QStringLiteral("%1 \"%2\" (%3) %4×%5, minimum %6×%7")
        .arg(QString::fromLatin1(w->metaObject()->className()), w->objectName(),
             w->parentWidget() != nullptr ? w->parentWidget()->objectName() : QString())
        .arg(w->width())
        .arg(w->height())
        .arg(w->minimumSizeHint().width())
        .arg(w->minimumSizeHint().height());
}

// Widgets whose text or controls are cut when they get less than their minimum size hint.
// Qt's own parts (a dock's float button, a line edit's clear button, a tab bar's arrows) are
// drawn smaller by design.
bool mustBeWhole(const QWidget* w) {
    static const QSet<QString> kinds = {
        QStringLiteral("QLabel"),       QStringLiteral("QPushButton"),
        QStringLiteral("QToolButton"),  QStringLiteral("QCheckBox"),
        QStringLiteral("QRadioButton"), QStringLiteral("QComboBox"),
        QStringLiteral("QSpinBox"),     QStringLiteral("QDoubleSpinBox"),
        QStringLiteral("QLineEdit"),    QStringLiteral("attnscope::app::PredictionBars")};
    return kinds.contains(QLatin1String(w->metaObject()->className())) &&
           !w->objectName().startsWith(QLatin1String("qt_")) &&
           qobject_cast<const QTabBar*>(w->parentWidget()) == nullptr;
}

QRect inWindow(const QWidget* w, const QWidget* window) {
    return QRect(w->mapTo(window, QPoint(0, 0)), w->size());
}

}  // namespace

class WindowLayoutTest : public QObject {
    Q_OBJECT

private slots:

    void initTestCase() {
        paneltest::usePanelTestSettings(QStringLiteral("AttnScopeWindowLayoutTest"));
        QVERIFY2(!defaultModelDir().isEmpty(), "resources/default_model not found");
    }

    void init() { QSettings().clear(); }

    void squeezedDocksKeepTheirMinimum();
    void resetLayoutRestoresTheFirstRunArrangement();
    void olderSavedLayoutsAreNotRestored();
    void analysisViewsGetMostOfTheHeight_data();
    void analysisViewsGetMostOfTheHeight();
    void everyControlIsWholeAt1024x700();
    void bottomDocksOpenStillFit1024x700();

private:
    // Shows the window at `size` and opens the shipped model with a [MASK] sentence; waits for
    // the result, its predictions and the first-run dock sizes.
    static void openShippedModel(MainWindow& window, QSize size);
};

void WindowLayoutTest::openShippedModel(MainWindow& window, QSize size) {
    window.resize(size);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QSignalSpy computed(window.service(), &ComputeService::computeFinished);
    window.start(defaultModelDir(), kMaskSentence);
    QVERIFY(computed.wait(60000));
    auto* bars = window.findChild<PredictionBars*>(QStringLiteral("predictionBars"));
    QVERIFY(bars != nullptr);
    QTRY_VERIFY(!bars->predictions().empty());
    QTest::qWait(50);  // the first-run dock sizes are set from the event loop
}

// The Predictions dock showed "3.3 %" as "3" and cut its tokens once squeezed (issue 15).
void WindowLayoutTest::squeezedDocksKeepTheirMinimum() {
    MainWindow window;
    openShippedModel(window, {1400, 900});
    QDockWidget* grid = dock(window, "gridDock");
    QDockWidget* predictions = dock(window, "predictionDock");
    QDockWidget* sentences = dock(window, "sentenceDock");
    sentences->show();
    window.resizeDocks({grid, predictions}, {10, 10}, Qt::Horizontal);
    window.resizeDocks({sentences}, {5000}, Qt::Vertical);  // the side docks get short
    QTest::qWait(50);

    auto* bars = window.findChild<PredictionBars*>(QStringLiteral("predictionBars"));
    const QFontMetrics fm(bars->font());
    // A short token, a bar and the widest percentage must fit side by side.
    QVERIFY2(bars->minimumSizeHint().width() >= fm.horizontalAdvance(QStringLiteral("5. array")) +
                                                    fm.horizontalAdvance(QStringLiteral("100.0%")),
             qPrintable(describe(bars)));
    QVERIFY2(bars->width() >= bars->minimumSizeHint().width(), qPrintable(describe(bars)));
    // ... and none of it is hidden beyond the dock's edge (no horizontal scroll bar there).
    QTRY_VERIFY(!bars->visibleRegion().isEmpty());
    QCOMPARE(bars->visibleRegion().boundingRect(), bars->rect());

    for (const char* name : {"predictionPanel", "maskPanel"}) {
        auto* panel = window.findChild<QWidget*>(QString::fromLatin1(name));
        auto* scroll = qobject_cast<QScrollArea*>(panel->parentWidget()->parentWidget());
        QVERIFY2(scroll != nullptr, name);
        QVERIFY2(scroll->viewport()->width() >= panel->minimumSizeHint().width(),
                 qPrintable(describe(panel) +
                            QStringLiteral(", viewport %1").arg(scroll->viewport()->width())));
    }
    // The grid keeps thumbnails large enough to see a pattern in (4 × 4 heads here).
    auto* gridView = window.findChild<HeadGridView*>();
    QVERIFY(gridView != nullptr);
    QVERIFY2(gridView->headRect({3, 3}).width() >= 32, qPrintable(describe(grid)));
}

void WindowLayoutTest::resetLayoutRestoresTheFirstRunArrangement() {
    MainWindow window;
    openShippedModel(window, {1400, 900});
    const char* names[] = {"gridDock", "maskDock", "predictionDock", "sentenceDock",
                           "dependencyDock"};
    std::vector<DockPlace> first;
    for (const char* name : names) {
        first.push_back(placeOf(window, dock(window, name)));
    }
    // A user's rearrangement: grid moved right, mask floating, predictions closed, the
    // sentence list open and tall, the whole of it saved.
    window.addDockWidget(Qt::RightDockWidgetArea, dock(window, "gridDock"));
    dock(window, "maskDock")->setFloating(true);
    dock(window, "predictionDock")->close();
    dock(window, "sentenceDock")->show();
    window.resizeDocks({dock(window, "sentenceDock")}, {500}, Qt::Vertical);
    QTest::qWait(50);
    AppSettings().setWindowState(window.saveState(AppSettings::kWindowStateVersion));

    auto* reset = window.findChild<QAction*>(QStringLiteral("resetLayoutAction"));
    QVERIFY(reset != nullptr);
    reset->trigger();
    QTest::qWait(50);
    for (std::size_t i = 0; i < std::size(names); ++i) {
        const DockPlace now = placeOf(window, dock(window, names[i]));
        QCOMPARE(now.area, first[i].area);
        QCOMPARE(now.hidden, first[i].hidden);
        QCOMPARE(now.floating, first[i].floating);
        if (!now.hidden) {
            QTRY_VERIFY2(
                std::abs(dock(window, names[i])->width() - first[i].size.width()) <= 2 &&
                    std::abs(dock(window, names[i])->height() - first[i].size.height()) <= 2,
                names[i]);
        }
    }
    QVERIFY(AppSettings().windowState().isEmpty());
}

// A layout saved by a build before issue 15 (state version 0) may hold squeezed docks.
void WindowLayoutTest::olderSavedLayoutsAreNotRestored() {
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        dock(window, "sentenceDock")->show();
        window.resizeDocks({dock(window, "gridDock")}, {700}, Qt::Horizontal);
        QTest::qWait(50);
        AppSettings().setWindowState(window.saveState(0));
    }
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTest::qWait(50);
    QVERIFY(dock(window, "sentenceDock")->isHidden());
    QVERIFY2(dock(window, "gridDock")->width() < 500,
             qPrintable(describe(dock(window, "gridDock"))));
}

void WindowLayoutTest::analysisViewsGetMostOfTheHeight_data() {
    QTest::addColumn<QSize>("screen");
    QTest::newRow("1920x1080") << QSize(1920, 1080);
    QTest::newRow("1600x1000") << QSize(1600, 1000);
    QTest::newRow("1024x700") << QSize(1024, 700);
}

// The head view of a 30-token sentence needs about 30 rows of 14 px plus its labels, some
// 480 px: 70 % of a 700 px window. The menu, tool and status bars take about 13 % of that, so
// 70 % still leaves room for a message above the tabs, while an empty bottom dock of a fifth of
// the height (the old first run) fails it.
void WindowLayoutTest::analysisViewsGetMostOfTheHeight() {
    QFETCH(QSize, screen);
    MainWindow window;
    // The size the app gives itself on this screen (less a 40 px desktop panel).
    openShippedModel(window,
                     WindowLayout::firstRunWindowSize(QRect(QPoint(0, 0), screen - QSize(0, 40))));
    auto* tabs = window.findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    QVERIFY(tabs->isVisible());
    QVERIFY2(
        tabs->height() >= 0.7 * window.height(),
        qPrintable(QStringLiteral("tabs %1 px of %2").arg(tabs->height()).arg(window.height())));
    // And most of the width: the side docks start narrow.
    QVERIFY2(tabs->width() >= 0.5 * window.width(),
             qPrintable(QStringLiteral("tabs %1 px of %2").arg(tabs->width()).arg(window.width())));
}

void WindowLayoutTest::everyControlIsWholeAt1024x700() {
    MainWindow window;
    openShippedModel(window, {1024, 700});
    // The window's minimum fits the screen: nothing is pushed beyond its edges.
    QVERIFY2(window.width() <= 1024 && window.height() <= 700, qPrintable(describe(&window)));
    QVERIFY(window.statusBar()->isVisible());
    QVERIFY(window.rect().contains(inWindow(window.statusBar(), &window)));

    const QList<QWidget*> all = window.findChildren<QWidget*>();
    for (const QWidget* w : all) {
        if (!w->isVisible() || !mustBeWhole(w)) {
            continue;
        }
        const auto* label = qobject_cast<const QLabel*>(w);
        if (label != nullptr && label->wordWrap()) {
            // Wrapped text may take more lines, but it must get the height they need.
            QVERIFY2(label->height() >= label->heightForWidth(label->width()),
                     qPrintable(describe(w)));
            continue;
        }
        const QSize min = w->minimumSizeHint();
        QVERIFY2(w->width() >= min.width() && w->height() >= min.height(), qPrintable(describe(w)));
    }
    // No tab bar lies over a button (or any control) outside it.
    for (const QTabBar* bar : window.findChildren<QTabBar*>()) {
        if (!bar->isVisible()) {
            continue;
        }
        const QRect barRect = inWindow(bar, &window);
        for (const QWidget* w : all) {
            if (w->isVisible() && mustBeWhole(w) && !bar->isAncestorOf(w) &&
                !w->isAncestorOf(bar)) {
                QVERIFY2(!barRect.intersects(inWindow(w, &window)),
                         qPrintable(describe(bar) + QStringLiteral(" overlaps ") + describe(w)));
            }
        }
    }
}

// The tabs take their tallest page's minimum height; with Compare's two rows of full-size maps
// and Entropy's three 200 px charts that was 511 px, and opening the Dependencies dock made the
// window 774 px tall, past a 1024 × 700 screen.
void WindowLayoutTest::bottomDocksOpenStillFit1024x700() {
    MainWindow window;
    openShippedModel(window, {1024, 700});
    for (const char* name : {"sentenceDock", "dependencyDock"}) {
        window.findChild<QDockWidget*>(QLatin1String(name))->show();
    }
    QTest::qWait(50);
    QVERIFY2(
        window.minimumSizeHint().height() <= 700,
        qPrintable(QStringLiteral("minimum height %1").arg(window.minimumSizeHint().height())));
    QVERIFY2(window.height() <= 700, qPrintable(describe(&window)));
}

}  // namespace attnscope::app

QTEST_MAIN(attnscope::app::WindowLayoutTest)
#include "window_layout_test.moc"
