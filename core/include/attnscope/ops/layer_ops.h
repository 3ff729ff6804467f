// The small building blocks around attention: linear projections, LayerNorm, activations.
// Pure functions on row-major [tokens, features] matrices; thread-safe.
#pragma once

#include "attnscope/base/tensor.h"
#include "attnscope/ops/op_params.h"
#include "attnscope/ops/weight_types.h"

namespace attnscope::ops {

// x·Wᵀ + b. x: [n, in], W: [out, in] -> [n, out].
Matrix linear(const Matrix& x, const Linear& layer);

// Outputs [first, first + count) of linear(x, layer) only, with the very same bits (every
// output is its own chain of operations): what recomputing one head needs.
Matrix linearRows(const Matrix& x, const Linear& layer, Eigen::Index first, Eigen::Index count);

// LayerNorm over each row (biased variance, as torch.nn.functional.layer_norm). [n, d]
Matrix layerNorm(const Matrix& x, const Norm& norm, float eps);

// RMSNorm over each row: x / sqrt(mean(x²) + eps) * weight (Llama family; no mean, no bias).
Matrix rmsNorm(const Matrix& x, const Norm& norm, float eps);

// LayerNorm or RMSNorm as the model uses.
Matrix normalize(const Matrix& x, const Norm& norm, NormKind kind, float eps);

// Applies the activation element-wise in place.
void activate(Matrix& x, Activation activation);

}  // namespace attnscope::ops
