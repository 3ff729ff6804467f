// The "Importance" analysis in the main window (registered in analyses/registry.cpp): its dock,
// tabbed with the other corpus docks (corpus/corpus_dock.h), and File ▸ Head importance….
#pragma once

#include "analyses/corpus/corpus_dock.h"

namespace attnscope::app {

// Computes on `path` now if the session has a model, else once the next model load succeeds
// (--importance). Does nothing in a window without the dock.
void computeImportanceWhenOpen(QMainWindow* window, AnalysisSession* session,
                               ComputeService* service, const QString& path);

}  // namespace attnscope::app
