// The place every corpus analysis (dependencies, coreference, importance, survey) takes in the
// main window, built one way: a bottom dock, tabbed with the others, closed until a run finishes
// or the user opens it, its panel in a frameless scroll area (a table and a figure side by side
// would otherwise set the window's minimum height past a 1024 × 700 screen), and at its first
// showing a share of the window's height (WindowLayout::sizeOnFirstShow; later the user's size
// stands). Its File entries raise the dock before they ask for a corpus.
#pragma once

#include <functional>

#include <QDockWidget>
#include <QMainWindow>
#include <QString>

#include "analyses/corpus/corpus_panel.h"
#include "analyses/registry.h"

class QAction;
class QMenu;

namespace attnscope::app::corpus {

// Adds the dock holding `panel` to the host window's bottom area, tabbed with its bottom dock,
// hidden, and closed while an encoder-decoder model is open (one_stack_docks.h).
QDockWidget* addDock(const AnalysisHost& host, QWidget* panel, const QString& title,
                     const QString& objectName);

// A File menu entry that raises `dock`, then runs `then` (which usually asks for a file).
QAction* addDockAction(QMenu* menu, const QString& text, const QString& objectName,
                       const QString& toolTip, QDockWidget* dock, std::function<void()> then);

// Shows `dock` and brings it to the front of its tab group.
void raiseDock(QDockWidget* dock);

// addDock for a corpus panel: its headActivated brings the head view to the front.
QDockWidget* dockPanel(const AnalysisHost& host, CorpusPanel* panel, const QString& title,
                       const QString& objectName);

// What a corpus dock does when its panel has shown the results of a corpus.
enum class OnShown { Raise, Show };

template <class Panel>
struct PanelDock {
    Panel* panel;
    QDockWidget* dock;
};

// A new `Panel` in its dock (dockPanel), which its signal `shown` opens.
template <class Panel>
PanelDock<Panel> addPanelDock(const AnalysisHost& host, const QString& title,
                              const QString& objectName, void (Panel::*shown)(const QString&),
                              OnShown onShown = OnShown::Raise) {
    auto* panel = new Panel(host.session, host.service, host.window);
    QDockWidget* dock = dockPanel(host, panel, title, objectName);
    QObject::connect(panel, shown, dock, [dock, onShown] {
        if (onShown == OnShown::Raise) {
            raiseDock(dock);
        } else {
            dock->show();
        }
    });
    return {panel, dock};
}

// A File entry that raises the dock `dockName`, then has its panel ask for a file (or run
// `then`: CorpusPanel::runChosenFile, …).
QAction* addPanelAction(const AnalysisHost& host, QMenu* file, const QString& dockName,
                        const QString& text, const QString& objectName, const QString& toolTip,
                        void (CorpusPanel::*then)() = &CorpusPanel::askForFile);

// Runs `path` in the window's corpus panel `panelName` (CorpusPanel::start) when a model is
// open (runWhenModelOpen). Does nothing in a window without the panel.
void startWhenModelOpen(QMainWindow* window, const QString& panelName, AnalysisSession* session,
                        ComputeService* service, const QString& path);

// Runs `run` now if the session has a model, else once the next model load succeeds (the
// command line's --coref, --importance and --survey): never on a failed load. `context` ends
// the wait when it is deleted.
void runWhenModelOpen(AnalysisSession* session, ComputeService* service, QObject* context,
                      std::function<void()> run);

}  // namespace attnscope::app::corpus
