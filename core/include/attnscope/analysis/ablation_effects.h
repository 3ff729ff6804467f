// What an ablation changed: the effect measures of a clean and an ablated pass over the same
// input (methods.md §11.7; definitions shared with tests/reference/ablation_reference.py).
// Every measure is computed in double from the passes' fp32 logits and maps; natural logs.
//
//  - Every model, per head: js = the mean over query rows of the Jensen–Shannon divergence of
//    the head's clean and ablated attention rows. Rows where either side sums to 0 (a
//    zero-ablated head, a fully masked query) are left out; NaN when none is left. Heads below
//    the first ablated layer get exactly 0.
//  - Masked LM, per target (position p holding the mask token, original token t):
//    deltaLogp = log softmax(ablated logits at p)[t] − log softmax(clean logits at p)[t].
//  - Causal LM: nll = mean over i in 0..n−2 of −log p(ids[i+1] | position i) (NaN when n < 2),
//    deltaNll = nll(ablated) − nll(clean); per position i: kl = KL(clean_i ‖ ablated_i),
//    a_i = argmax of the clean logits (lowest id on ties), deltaPTop = p_ablated(a_i) −
//    p_clean(a_i); logit difference at a chosen position between tokens A and B:
//    delta = (l_A − l_B)_ablated − (l_A − l_B)_clean.
// Pure functions of their arguments; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "attnscope/base/cancel.h"
#include "attnscope/forward/forward_result.h"
#include "attnscope/model/model.h"

namespace attnscope::analysis {

struct MaskedTarget {
    int position = 0;             // holds the mask token in the input
    std::int32_t originalId = 0;  // the token that was masked there
};

struct LogitDiffRequest {
    int position = 0;
    std::int32_t a = 0;
    std::int32_t b = 0;
};

struct EffectRequest {
    std::vector<MaskedTarget> targets;          // masked LM only
    std::optional<LogitDiffRequest> logitDiff;  // causal LM only
};

struct MaskedTargetEffect {
    MaskedTarget target;
    double logpClean = 0;
    double logpAblated = 0;
    double deltaLogp = 0;
};

struct LogitDiffEffect {
    LogitDiffRequest request;
    double clean = 0;    // l_A − l_B in the clean pass
    double ablated = 0;  // l_A − l_B in the ablated pass
    double delta = 0;
};

struct CausalEffects {
    double nllClean = 0;  // NaN when the input has fewer than 2 tokens
    double nllAblated = 0;
    double deltaNll = 0;
    std::vector<double> kl;            // [nTokens]
    std::vector<std::int32_t> topIds;  // [nTokens] clean argmax
    std::vector<double> pTopClean;     // [nTokens]
    std::vector<double> pTopAblated;   // [nTokens]
    std::vector<double> deltaPTop;     // [nTokens]
    std::optional<LogitDiffEffect> logitDiff;
};

struct AblationEffects {
    int nLayers = 0;
    int nHeads = 0;
    std::vector<double> js;                  // [nLayers * nHeads], headIndex order
    std::vector<MaskedTargetEffect> masked;  // one per requested target (masked LM)
    std::optional<CausalEffects> causal;     // causal LM with a prediction head

    double jsOf(HeadId h) const { return js[static_cast<std::size_t>(headIndex(h, nHeads))]; }
};

// The per-head JS change alone. Works with or without recorded maps (a head without maps is
// recomputed with forward::recomputeHead, two full-size heads per head: slow for a long input,
// so `cancel` is checked before every head; Cancelled when set). Throws InvalidArgument when the
// two passes differ in shape or tokens.
std::vector<double> headJsChange(const model::Model& model, const forward::ForwardResult& clean,
                                 const forward::ForwardResult& ablated,
                                 const CancelToken& cancel = {});

// Every measure the model supports; Cancelled when `cancel` is set (checked per head). Throws
// InvalidArgument naming the problem: targets for a
// causal LM or a logit difference for a masked LM, a request without a prediction head, a
// position outside the input, a target position not holding the mask token, an id outside
// the vocabulary, passes of different inputs.
AblationEffects measureAblation(const model::Model& model, const forward::ForwardResult& clean,
                                const forward::ForwardResult& ablated,
                                const EffectRequest& request = {}, const CancelToken& cancel = {});

}  // namespace attnscope::analysis
