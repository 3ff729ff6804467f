// The main window's dock arrangement: the first-run layout, the one saved between runs, and
// View ▸ Reset layout, which goes back to the first (issue 15).
//
// First run: the analysis views (the central tabs) get most of the window. The model grid
// (left) and the mask/predictions tabs (right) start narrow, in proportion to the window; the
// Sentences, Dependencies and Coreference docks (bottom, tabbed) start closed and open once they
// have something to show, so their empty lists do not take a third of the height.
#pragma once

#include <QByteArray>
#include <QSize>

class QMainWindow;
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

private:
    QMainWindow* m_window;
    QByteArray m_firstRun;
};

}  // namespace attnscope::app
