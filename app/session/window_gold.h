// The gold coreference arcs of the window on screen, the way the session holds them for the
// head views to draw (as session/treebank.h's SentenceGold for dependencies). The coreference
// analysis (analyses/coref/coref_document.h) finds them; the views only read them.
#pragma once

#include <cstddef>
#include <vector>

#include "attnscope/analysis/coref_scoring.h"
#include "attnscope/analysis/word_alignment.h"

namespace attnscope::app {

// The gold coreference arcs of the window on screen. Words without a token have wordUnit -1
// (word_alignment.h) and arcs from or to them are left out of `arcs`.
struct WindowGold {
    std::size_t window = 0;
    analysis::WindowText text;
    std::vector<analysis::CorefArc> arcs;  // both ends have a token
    analysis::WordAlignment alignment;
};

}  // namespace attnscope::app
