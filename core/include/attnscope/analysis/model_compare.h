// Two models on one sentence, head by head (issue 32): how far each head's attention moved
// between, say, a model's F16 and Q4_K_M files, or its safetensors and GGUF forms. Per head, the
// Jensen–Shannon divergence of every query row between the two maps with Clark et al.'s
// smoothing (head_compare.h, methods.md §1.6), summed over rows and averaged per row.
// Pure functions; thread-safe.
#pragma once

#include <vector>

#include "attnscope/base/cancel.h"
#include "attnscope/base/head_id.h"
#include "attnscope/forward/forward_result.h"
#include "attnscope/model/model.h"

namespace attnscope::analysis {

struct HeadDivergence {
    HeadId head;
    float total = 0;   // Σ over query rows, nats
    float mean = 0;    // total / rows
    float maxRow = 0;  // the largest row's divergence
    int maxRowIndex = 0;
};

struct ModelComparison {
    int nLayers = 0;
    int nHeads = 0;
    int nTokens = 0;
    std::vector<HeadDivergence> heads;  // layer-major: [layer * nHeads + head]

    // The heads, most moved (largest total) first; ties by layer, then head.
    std::vector<HeadDivergence> ranked() const;
};

// `a` and `b` are passes of the same token ids through `modelA` and `modelB`, which must have
// the same layers and heads (InvalidArgument naming both shapes otherwise). A pass that kept no
// maps has each head recomputed (head_record.h: the same bits).
ModelComparison compareModels(const model::Model& modelA, const forward::ForwardResult& a,
                              const model::Model& modelB, const forward::ForwardResult& b,
                              const CancelToken& cancel = {});

}  // namespace attnscope::analysis
