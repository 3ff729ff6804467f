// The weight product's kernel for AVX2 + FMA, the instruction set every AttnScope build
// requires (compiled with -mavx2 -mfma whatever the build's -march).
#include "weight_kernel_impl.h"

namespace attnscope::ops::detail {

// 16 rows of x (two vectors) × 6 rows of W = 12 accumulators of the 16 registers, 8 loads per
// 12 FMAs (8 rows of W per tile measured slower, and so did groups of 32 rows × 3 rows of W:
// 0.78 ×). On Zen 5 this runs at the 256-bit FMA peak (≈ 100 GFLOP/s on one core).
WeightKernel avx2WeightKernel() {
    return {"avx2", &outputBlock<Ymm, 2, 6, Ymm, 2, 6, Ymm, 6>};
}

}  // namespace attnscope::ops::detail
