// The docks whose features re-run a one-stack model (dependency and coreference scoring, head
// importance, the survey) on encoder-decoder models (issue 20, 30): closed while such a model is
// open, so they do not take half the window for nothing, and opened again as they were when a
// one-stack model opens. Their contents stay disabled meanwhile, with the reason as their tool
// tip and in their title, for a user who opens one from the View menu. The service refuses the
// jobs too (ComputeService::refused); this shows it before a click.
#pragma once

class QDockWidget;
class QMainWindow;

namespace attnscope::app {

class AnalysisSession;

// Guards `dock` (corpus::addDock does so for every corpus dock); follows every model opened
// afterwards.
void guardOneStackDock(QDockWidget* dock, AnalysisSession* session);

// Opens the docks closed for an encoder-decoder model again, so that the layout saved on quit
// is the user's own: call right before saving it, as the window closes.
void reopenGuardedDocks(QMainWindow* window);

}  // namespace attnscope::app
