// The place every corpus analysis (dependencies, coreference, importance, survey) takes in the
// main window, built one way: a bottom dock, tabbed with the others, closed until a run finishes
// or the user opens it, its panel in a frameless scroll area (a table and a figure side by side
// would otherwise set the window's minimum height past a 1024 × 700 screen), and at its first
// showing a share of the window's height (WindowLayout::sizeOnFirstShow; later the user's size
// stands). Its File entries raise the dock before they ask for a corpus.
#pragma once

#include <functional>

#include <QString>

class QAction;
class QDockWidget;
class QMainWindow;
class QMenu;
class QObject;
class QWidget;

namespace attnscope::app {

class AnalysisSession;
class ComputeService;
struct AnalysisHost;

namespace corpus {

// Adds the dock holding `panel` to the host window's bottom area, tabbed with its bottom dock,
// hidden, and closed while an encoder-decoder model is open (one_stack_docks.h).
QDockWidget* addDock(const AnalysisHost& host, QWidget* panel, const QString& title,
                     const QString& objectName);

// Shows `dock` and brings it to the front of its tab group.
void raiseDock(QDockWidget* dock);

// A File menu entry that raises `dock`, then runs `then` (which usually asks for a file).
QAction* addDockAction(QMenu* menu, const QString& text, const QString& objectName,
                       const QString& toolTip, QDockWidget* dock, std::function<void()> then);

// Runs `run` now if the session has a model, else once the next model load succeeds (the
// command line's --coref, --importance and --survey): never on a failed load. `context` ends
// the wait when it is deleted.
void runWhenModelOpen(AnalysisSession* session, ComputeService* service, QObject* context,
                      std::function<void()> run);

}  // namespace corpus
}  // namespace attnscope::app
