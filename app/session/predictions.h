// What the model predicts at the position on screen, as the session holds it for the
// Predictions panel: the top tokens of the result shown, and with ablations where they stand in
// the other pass. Plain values, built off the GUI thread by the ComputeService.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <QString>

#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/forward/prediction.h"

namespace attnscope::app {

// One token's standing in the other pass of an ablation: its probability and rank there.
struct PredictionShift {
    float otherProbability = 0;
    int otherRank = 0;  // 1-based over the whole vocabulary
};

struct Predictions {
    std::shared_ptr<const analysis::SentenceAnalysis> result;  // null: none yet
    int position = -1;
    std::vector<forward::TokenPrediction> top;  // of result(): ablated when ablations are set
    // With ablations only (else empty): the clean pass's top tokens, where each of them went in
    // the ablated pass, and where each of `top` stood in the clean pass.
    std::vector<forward::TokenPrediction> cleanTop;
    std::vector<PredictionShift> cleanTopInAblated;  // [cleanTop]
    std::vector<PredictionShift> topInClean;         // [top]
    // Encoder-decoder models: the target token the row produces under teacher forcing (-1: past
    // the target), its label and its standing among all tokens.
    std::int32_t targetId = -1;
    QString targetLabel;
    PredictionShift targetStanding;
};

// The tokens the user picked in the Predictions panel for the logit views to explain at the
// prediction position: the logit of `target` (none: the model's top prediction there), minus
// that of `distractor` when one is picked.
struct PickedTokens {
    std::optional<std::int32_t> target;
    std::optional<std::int32_t> distractor;

    bool operator==(const PickedTokens& other) const = default;
};

}  // namespace attnscope::app
