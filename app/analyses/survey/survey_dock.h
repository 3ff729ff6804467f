// The "Survey" analysis in the main window (registered in analyses/registry.cpp): its dock,
// tabbed with the other corpus docks (corpus/corpus_dock.h), and its File entries "Survey
// heads…" (a file dialog) and "Survey the loaded treebank" (enabled while the session holds one).
#pragma once

#include "analyses/corpus/corpus_dock.h"

namespace attnscope::app {

// Surveys `path` now if the session has a model, else once the next model load succeeds
// (--survey). Does nothing in a window without the dock.
void surveyWhenOpen(QMainWindow* window, AnalysisSession* session, ComputeService* service,
                    const QString& path);

}  // namespace attnscope::app
