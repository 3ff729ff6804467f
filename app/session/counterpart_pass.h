// The sentence on screen through a second model, given to the views by an analysis, so that a
// view can draw a head beside the same head of that model (the Compare tab's second-model mode)
// without knowing who loaded it. Both passes are of the same token ids.
#pragma once

#include <memory>

#include <QString>

#include "attnscope/analysis/sentence_analysis.h"

namespace attnscope::app {

struct CounterpartPass {
    QString ownName;    // the session's model, as the user knows it: "llama_q8_0.gguf"
    QString otherName;  // the second model: "llama_q4_k.gguf"
    // The session model's pass it pairs with: its clean pass (ablations are the session's, not
    // the second model's).
    std::shared_ptr<const analysis::SentenceAnalysis> own;
    std::shared_ptr<const analysis::SentenceAnalysis> other;  // the second model's
};

}  // namespace attnscope::app
