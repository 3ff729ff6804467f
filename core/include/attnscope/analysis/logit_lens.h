// The logit lens (issue 34; nostalgebraist 2020; methods.md §12.2): what the model would predict
// from the residual stream part-way through — the stream entering layer 0 (the embeddings, stage
// 0) and after each layer l (stage l + 1) — through the model's own final norm, recomputed on
// that stream, and its prediction head (with Gemma 2's final soft-cap). For the BERT family,
// whose layers end in their own LayerNorm, the stream after each layer goes straight into the
// MLM head. The last stage is the model's own output.
//
// Per stage and position: the top-k tokens (ties to the lower id), the target's probability and
// rank (1 = the most probable; ties to the lower id), and KL(P_final ‖ P_stage) in nats. Needs a
// pass with ForwardOptions::keepLayerStates. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attnscope/base/cancel.h"
#include "attnscope/forward/forward_result.h"
#include "attnscope/model/model.h"

namespace attnscope::analysis {

struct LensToken {
    std::int32_t id = 0;
    float probability = 0;
};

struct LensCell {
    std::vector<LensToken> top;
    std::int32_t target = 0;
    float targetProbability = 0;
    int targetRank = 0;
    double klFromFinal = 0;  // nats; 0 at the last stage
};

struct LogitLens {
    int nStages = 0;  // nLayers + 1
    int nTokens = 0;
    std::vector<LensCell> cells;  // [stage][token]

    const LensCell& at(int stage, int token) const {
        return cells[static_cast<std::size_t>(stage) * static_cast<std::size_t>(nTokens) +
                     static_cast<std::size_t>(token)];
    }
};

// Why `model` has no logit lens ("" when it has one): encoder-decoders, no prediction head.
std::string lensUnsupportedReason(const model::Model& model);

// Stage `stage`'s vocabulary logits [nTokens, vocabSize].
Matrix lensLogits(const model::Model& model, const forward::ForwardResult& r, int stage);

// Every stage at every position. `targets`: one token per position, or empty for each
// position's final prediction. Throws InvalidArgument for a model without a lens, a pass without
// layer states, targets of another count or outside the vocabulary, topK < 1; Cancelled.
LogitLens logitLens(const model::Model& model, const forward::ForwardResult& r, int topK,
                    const std::vector<std::int32_t>& targets = {}, const CancelToken& cancel = {});

}  // namespace attnscope::analysis
