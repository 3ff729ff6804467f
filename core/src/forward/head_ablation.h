// Applying an ablation to one head's freshly computed attention, shared by the forward pass
// and recomputeHead so that a recomputed ablated head equals the recorded one bit for bit.
// Internal to attnscope_core.
#pragma once

#include "attnscope/forward/interventions.h"
#include "attnscope/ops/attention.h"
#include "layer_attention.h"

namespace attnscope::forward::detail {

// Rewrites `out` (as attendHead left it) for `kind`; logits are never touched. `p` must hold
// the head (project or projectHead): Sink reads its value row 0. `means` is required for Mean.
void ablateHead(const model::ModelSpec& spec, const Projections& p, HeadId head, AblationKind kind,
                const HeadMeans* means, ops::AttentionOutputs out);

}  // namespace attnscope::forward::detail
