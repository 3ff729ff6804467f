// The "Importance" dock's place in the main window (kept out of main_window.cpp): bottom area,
// tabbed with the Coreference dock, closed until a run finishes or View or File ▸ Head
// importance… opens it; the first time it opens it gets half the window's height (a heatmap, a
// table and a chart side by side need more than the scoring docks).
#pragma once

#include <functional>

class QDockWidget;
class QMainWindow;
class QString;

namespace attnscope::app {

class AnalysisSession;
class ComputeService;
class ImportancePanel;

struct ImportanceDock {
    QDockWidget* dock = nullptr;
    ImportancePanel* panel = nullptr;
};

// Adds the dock to `window`, tabbed with `tabWith`, and, once the window's menus exist, the
// entry File ▸ Head importance… after the other corpus entries (before the first separator).
// `showHeadView` brings the head view to the front after a head was clicked.
ImportanceDock addImportanceDock(QMainWindow* window, AnalysisSession* session,
                                 ComputeService* service, QDockWidget* tabWith,
                                 const std::function<void()>& showHeadView);

// Computes importance on `path` now if the session has a model, else once the next model load
// succeeds (--importance). Does nothing in a window without the dock.
void computeImportanceWhenOpen(QMainWindow* window, AnalysisSession* session,
                               ComputeService* service, const QString& path);

}  // namespace attnscope::app
