// One head's full record on demand. When a forward pass keeps no maps (they did not fit its
// memory budget), recomputeHead rebuilds any layer × head from the input that layer's attention
// read: that head's q/k/v projections and one attention — never a whole forward pass, nor the
// layer's other heads. It runs the functions of the pass, whose every output is its own chain
// of operations, so the result equals a full recording bit for bit
// (tests/core/forward/map_budget_test.cpp). Thread-safe; throws InvalidArgument for a
// head outside the model or a result without layer inputs, and Cancelled once `cancel` is set
// (checked before each step: mask and RoPE tables, projections, attention), so an app can
// drop a head nobody wants any more without waiting for it to finish.
// An ablated head (ForwardResult::ablated) is rebuilt with its ablation applied, as recorded.
#pragma once

#include "attnscope/base/cancel.h"
#include "attnscope/base/head_id.h"
#include "attnscope/forward/forward_result.h"
#include "attnscope/model/model.h"

namespace attnscope::forward {

struct HeadRecord {
    Matrix logits;   // [n, n] scaled, before the mask
    Matrix probs;    // [n, n]
    Matrix context;  // [n, headDimV]
    Vector entropy;  // [n] nats
};

HeadRecord recomputeHead(const model::Model& model, const ForwardResult& r, HeadId head,
                         const CancelToken& cancel = {});

// The head's record either way: copied from the maps when recorded, else recomputed (which
// `cancel` can stop).
HeadRecord headRecord(const model::Model& model, const ForwardResult& r, HeadId head,
                      const CancelToken& cancel = {});

}  // namespace attnscope::forward
