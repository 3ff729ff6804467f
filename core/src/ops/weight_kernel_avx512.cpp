// The weight product's kernel for AVX-512 (F, VL), compiled with its own -m flags and run only
// where the CPU has it (weight_product.cpp asks once).
#if !defined(__AVX512F__) || !defined(__AVX512VL__)
#error "weight_kernel_avx512.cpp needs -mavx512f -mavx512vl (see core/src/ops/CMakeLists.txt)"
#endif

#include "weight_kernel_impl.h"

namespace attnscope::ops::detail {

namespace {

// A whole 16-row panel in one register. Unaligned loads: the packed panels are aligned only as
// Eigen aligns them, to 32 bytes in a portable (AVX2) build.
struct Zmm {
    using T = __m512;
    static constexpr int kLanes = 16;

    static T zero() { return _mm512_setzero_ps(); }

    static T load(const float* p) { return _mm512_loadu_ps(p); }

    static void store(float* p, T v) { _mm512_storeu_ps(p, v); }

    static T broadcast(const float* p) { return _mm512_set1_ps(*p); }

    static T fmadd(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
};

}  // namespace

// Groups of 32 rows of x (two panels, two registers) × 12 rows of W = 24 of the 32 registers,
// 14 loads per 24 FMAs; a last panel of 9–16 rows takes 16 rows × 12 rows of W, and one of up
// to 8 rows 8 × 12 (VL gives the AVX registers 32 names too). Measured on one core of an AMD
// EPYC (Zen 5), BERT-base shapes, one thread: the 32-row groups ran 1.3–1.5 × the 16-row tiles
// alone (150 → 190 GFLOP/s at n = 128, ≈ the core's FMA peak; tests/bench/README.md); 8 or 16
// rows of W per 16-row tile were 3–8 % slower, 24 spilled (× 0.5).
WeightKernel avx512WeightKernel() {
    return {"avx512", &outputBlock<Zmm, 2, 12, Zmm, 1, 12, Ymm, 12>};
}

}  // namespace attnscope::ops::detail
