// Attention masks, composed into one additive bias as PyTorch's scaled_dot_product_attention
// and ONNX's Attention op do: 0 where a key is allowed, -inf where it is forbidden, plus any
// finite additive values. Built once per forward pass and shared by every head.
#pragma once

#include <optional>

#include "attnscope/base/tensor.h"

namespace attnscope::ops {

struct MaskSpec {
    // Causal masks are bottom-right aligned: query q sees key k iff k <= q + offset, where the
    // offset defaults to nKeys - nQueries (0 for a square map).
    bool causal = false;
    std::optional<int> causalOffset;
    // Sliding window (Mistral): query q sees key k only if (q + offset) - k < window, with the
    // causal offset above; HF's `kv_idx > q_idx - sliding_window`.
    std::optional<int> window;
    std::optional<BoolMatrix> allowed;  // [nQueries, nKeys]; 1 = allowed
    std::optional<Matrix> additive;     // [nQueries, nKeys]; added to the logits (may hold -inf)
};

// The combined bias [nQueries, nKeys]. Throws InvalidArgument if a given matrix has the
// wrong shape. Uses select, never (1 - mask) * -inf, which would give 0 * inf = NaN.
Matrix buildBias(const MaskSpec& mask, int nQueries, int nKeys);

// 1 where the bias is finite (key takes part), 0 where it is -inf. [nQueries, nKeys]
BoolMatrix allowedFromBias(const Matrix& bias);

bool isTrivial(const MaskSpec& mask);

}  // namespace attnscope::ops
