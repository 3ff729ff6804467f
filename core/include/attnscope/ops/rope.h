// Rotary position embedding (RoPE), applied to the query and key projections of every head
// before attention. Both pairings of methods.md §7.1 and partial rotation (§7.2): only the first
// `rope.dims` dimensions of each head turn, the rest pass through.
#pragma once

#include <vector>

#include "attnscope/base/tensor.h"
#include "attnscope/ops/op_params.h"

namespace attnscope::ops {

// The angles' cosines and sines for a sequence: [n, dims / 2] each, row = token.
struct RopeTable {
    Matrix cos;
    Matrix sin;
};

// Angle of token i, frequency k: positions[i] * inv_freq[k], in float32 as Hugging Face does.
RopeTable ropeTable(const RopeSpec& rope, const std::vector<int>& positions);

// Rotates x: [n, nHeads * headDim] in place, head by head.
void applyRope(Matrix& x, int nHeads, int headDim, const RopeSpec& rope, const RopeTable& table);

}  // namespace attnscope::ops
