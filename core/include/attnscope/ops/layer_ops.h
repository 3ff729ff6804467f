// The small building blocks around attention: linear projections, LayerNorm, activations.
// Pure functions on row-major [tokens, features] matrices; thread-safe.
#pragma once

#include "attnscope/base/tensor.h"
#include "attnscope/model/model_spec.h"
#include "attnscope/model/weights.h"

namespace attnscope::ops {

// x·Wᵀ + b. x: [n, in], W: [out, in] -> [n, out].
Matrix linear(const Matrix& x, const model::Linear& layer);

// LayerNorm over each row (biased variance, as torch.nn.functional.layer_norm). [n, d]
Matrix layerNorm(const Matrix& x, const model::Norm& norm, float eps);

// Applies the activation element-wise in place.
void activate(Matrix& x, model::Activation activation);

}  // namespace attnscope::ops
