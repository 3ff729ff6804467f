// The "Coreference" dock's place in the main window (kept out of main_window.cpp): bottom area,
// tabbed with the Dependencies dock, closed until a coreference run finishes or View opens it;
// the first time it opens it gets two fifths of the window's height, like the Dependencies dock.
#pragma once

#include <functional>

class QDockWidget;
class QMainWindow;
class QString;

namespace attnscope::app {

class AnalysisSession;
class ComputeService;
class CorefPanel;

struct CorefDock {
    QDockWidget* dock = nullptr;
    CorefPanel* panel = nullptr;
};

// Adds the dock to `window`, tabbed with `tabWith`. `showHeadView` brings the head view to the
// front: after a heatmap click or double-click (the head opens there) and after a window is
// chosen (its arcs are drawn there).
CorefDock addCorefDock(QMainWindow* window, AnalysisSession* session, ComputeService* service,
                       QDockWidget* tabWith, const std::function<void()>& showHeadView);

// Scores `path` now if the session has a model, else once the next model load succeeds.
void scoreWhenModelOpen(CorefPanel* panel, AnalysisSession* session, ComputeService* service,
                        const QString& path);

}  // namespace attnscope::app
