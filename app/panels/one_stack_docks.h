// The docks whose features re-run a one-stack model (dependency and coreference scoring, head
// importance, the survey) on encoder-decoder models (issue 20): their contents disabled, with
// the reason as their tool tip and in their title, for as long as such a model is open. The
// service refuses the jobs too (ComputeService::refused); this shows it before a click.
#pragma once

class QMainWindow;

namespace attnscope::app {

class AnalysisSession;

// Call once the docks exist; follows every model opened afterwards.
void guardOneStackDocks(QMainWindow* window, AnalysisSession* session);

}  // namespace attnscope::app
