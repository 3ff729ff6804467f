// x·Wᵀ for a weight matrix W kept as stored ([out, in], row-major): the product every linear
// layer runs. Internal to attnscope_core.
#pragma once

#include "attnscope/base/tensor.h"

namespace attnscope::ops::detail {

// Up to this many rows of x, productNT reads W in place with a register-tiled kernel;
// above it, Eigen's cache-blocked GEMM (which repacks W on every call) wins.
inline constexpr Eigen::Index kInPlaceRows = 128;

// y = x · wᵀ; x [n, in], w [out, in], y [n, out]. Deterministic: every output element is summed
// in the same order whatever the thread count, so a recomputed layer repeats its bits.
Matrix productNT(const Eigen::Ref<const Matrix>& x, const Eigen::Ref<const Matrix>& w);

// The in-place kernel alone, for any n (tests compare it against Eigen on odd shapes).
void productNTInPlace(const Eigen::Ref<const Matrix>& x, const Eigen::Ref<const Matrix>& w,
                      Eigen::Ref<Matrix> y);

}  // namespace attnscope::ops::detail
