// The main window's dock arrangement: the first-run layout, the one saved between runs, and
// View ▸ Reset layout, which goes back to the first (issue 15).
//
// First run: the analysis views (the central tabs) get most of the window. The model grid
// (left) and the mask/predictions tabs (right) start narrow, in proportion to the window; the
// Sentences, Dependencies and Coreference docks (bottom, tabbed) start closed and open once they
// have something to show, so their empty lists do not take a third of the height.
#pragma once

#include <optional>

#include <QByteArray>
#include <QSize>

class QDockWidget;
class QMainWindow;
class QMargins;
class QRect;

namespace attnscope::app {

class AppSettings;

class WindowLayout {
public:
    explicit WindowLayout(QMainWindow* window) : m_window(window) {}

    // Call once every dock is added and before restore(): remembers the arrangement that
    // reset() returns to.
    void captureFirstRun();

    // Restores the window's geometry (or gives it the first-run size) and the saved docks.
    // Returns false when no layout of this build's version was saved: size the docks with
    // sizeDocks() once the window is shown.
    bool restore(const AppSettings& settings);
    void save(AppSettings& settings) const;

    // The first-run arrangement again, with the first-run sizes once the event loop has laid
    // it out; the saved layout is forgotten.
    void reset(AppSettings& settings);

    // The first-run dock sizes, in proportion to the window. resizeDocks only takes effect
    // once the window is laid out, so call it from the event loop after the first show.
    void sizeDocks();

    // Nine tenths of the screen's free area, or all of it up to 1366 px wide, so that a laptop
    // (1280 × 800, 1024 × 700) shows the docks on the right, not beyond its edge.
    static QSize firstRunWindowSize(const QRect& available);

    // Moves the shown window, and shrinks it if it must, so that its frame (the title bar the
    // window manager adds) lies in its screen's free area: resize() sizes the contents only, so
    // a first run given all of a 1024 × 700 screen put the status bar below its edge (issue
    // 30). Only a window at the first-run size restore() gave it (Qt's restoreGeometry fits a
    // saved one itself; a size set since is the caller's). Call once shown; the window manager
    // frames a window a moment after it is mapped, so the window calls it again then.
    // Maximized and full-screen windows are left alone.
    void fitOnScreen();

    // The contents' geometry (as QWidget::geometry) for a window whose frame adds `frame`
    // around `geometry`, so that the frame lies in `available`: moved in where it fits, else
    // shrunk to the area less the frame.
    static QRect fittedGeometry(const QRect& geometry, const QMargins& frame,
                                const QRect& available);

    // A bottom dock (Sentences, Dependencies, Coreference, Importance, Survey) is given this
    // height when it first opens: a quarter of the window, so that the head map keeps about
    // half of it (issue 30: at 1024 × 700 half a window for the dock left the map 180–250 px).
    static int bottomDockHeight(int windowHeight);
    // Gives `dock` bottomDockHeight the first time it is shown; later the user's size stands.
    static void sizeOnFirstShow(QMainWindow* window, QDockWidget* dock);

private:
    QMainWindow* m_window;
    QByteArray m_firstRun;
    std::optional<QSize> m_unfitted;  // the first-run size, until fitOnScreen fitted it
};

}  // namespace attnscope::app
