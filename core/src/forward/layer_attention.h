// One layer's attention, shared by the forward pass and the on-demand recompute of a single
// head (head_record.h). Both must run exactly these functions on exactly these shapes, so a
// recomputed head equals the recorded one bit for bit. Internal to attnscope_core.
#pragma once

#include <vector>

#include "attnscope/forward/forward_result.h"
#include "attnscope/model/model.h"
#include "attnscope/ops/attention.h"
#include "attnscope/ops/rope.h"

namespace attnscope::forward::detail {

// What every layer's attention shares in one forward pass.
struct AttentionContext {
    Matrix bias;          // [n, n] mask as an additive bias
    ops::RopeTable rope;  // empty without RoPE
};

// Position ids of a sequence (RoBERTa skips pads; RoPE models count from 0).
std::vector<int> positionIds(const model::ModelSpec& spec, const std::vector<std::int32_t>& ids);

struct Projections {
    Matrix q;  // [n, nHeads * headDimK], rotated when the model uses RoPE
    Matrix k;  // [n, nKvHeads * headDimK], rotated likewise
    Matrix v;  // [n, nKvHeads * headDimV]
};

// The whole layer's projections: always all heads at once (the same GEMM shapes as the pass).
Projections project(const model::Model& m, int layer, const Matrix& h, const AttentionContext& ctx);

// One query head (reading its key/value head under GQA) into `out`; returns the fully masked
// rows.
std::vector<int> attendHead(const model::ModelSpec& spec, const Projections& p, int head,
                            float scale, const Matrix& bias, ops::AttentionOutputs out);

}  // namespace attnscope::forward::detail
