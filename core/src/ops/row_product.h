// x·Wᵀ for one row x and a weight matrix kept in a ggml block format: the product of every
// KV-cached generation step (forward/generation.cpp), where the weight product's panels of x
// have one row to fill. Internal to attnscope_core.
#pragma once

#include "attnscope/base/tensor.h"
#include "attnscope/ops/weight_types.h"
#include "row_kernel.h"

namespace attnscope::ops::detail {

// Whether rowProduct takes this product: x one row, W Q8_0 blocks grouped at load
// (ops::groupRows: multiplied exactly, not with 8-bit activations). Other layouts take the
// weight product for one row as for many.
bool rowProductTakes(const Matrix& x, const Linear& w);

// Rows [first, first + count) of W against x [1, in] (+ bias[0 … count), when given), on the
// compute threads: the same bits as storedProduct (every output one fused multiply-add chain
// over k from zero, then its bias), at about the bytes per weight the format stores.
Matrix rowProduct(const Matrix& x, const Linear& w, Eigen::Index first, Eigen::Index count,
                  const float* bias = nullptr);

// rowProduct with a given kernel, serially (tests compare the kernels' bits).
Matrix rowProductWith(const RowKernel& kernel, const Matrix& x, const Linear& w, Eigen::Index first,
                      Eigen::Index count, const float* bias);

// The kernel for this CPU: the instruction set the weight product uses (weightKernel()).
const RowKernel& rowKernel();

}  // namespace attnscope::ops::detail
