// The "Survey" dock's place in the main window (kept out of main_window.cpp): bottom area,
// tabbed with the Coreference and Importance docks, closed until a survey finishes or File ▸
// Survey heads… opens it; the first time it opens it gets half the window's height (a table and
// a chart side by side). Its File menu entries: "Survey heads…" (a file dialog) and "Survey the
// loaded treebank" (enabled while the session holds one).
#pragma once

#include <functional>

class QDockWidget;
class QMainWindow;
class QString;

namespace attnscope::app {

class AnalysisSession;
class ComputeService;
class SurveyPanel;

struct SurveyDock {
    QDockWidget* dock = nullptr;
    SurveyPanel* panel = nullptr;
};

// Adds the dock to `window`, tabbed with `tabWith`, and, once the window's menus exist, the
// File entries after the other corpus entries (before the first separator). `showHeadView`
// brings the head view to the front after a head was clicked.
SurveyDock addSurveyDock(QMainWindow* window, AnalysisSession* session, ComputeService* service,
                         QDockWidget* tabWith, const std::function<void()>& showHeadView);

// Surveys `path` now if the session has a model, else once the next model load succeeds
// (--survey). Does nothing in a window without the dock.
void surveyWhenOpen(QMainWindow* window, AnalysisSession* session, ComputeService* service,
                    const QString& path);

}  // namespace attnscope::app
