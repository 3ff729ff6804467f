// The "Coreference" analysis in the main window (registered in analyses/registry.cpp): its dock,
// tabbed with the other corpus docks (corpus/corpus_dock.h), and File ▸ Score coreference….
#pragma once

#include "analyses/corpus/corpus_dock.h"

namespace attnscope::app {

// Scores `path` now if the session has a model, else once the next model load succeeds
// (--coref). Does nothing in a window without the dock.
void scoreCorefWhenOpen(QMainWindow* window, AnalysisSession* session, ComputeService* service,
                        const QString& path);

}  // namespace attnscope::app
