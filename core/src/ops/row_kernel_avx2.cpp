// The one-row product's kernel for AVX2 + FMA + F16C: every CPU AttnScope runs on.
#include "row_kernel_impl.h"

namespace attnscope::ops::detail {

namespace {

// 8 rows of W per vector, two per group of 16.
struct Ymm {
    using T = __m256;
    static constexpr int kLanes = 8;

    static T zero() { return _mm256_setzero_ps(); }

    static T broadcast(const float* p) { return _mm256_broadcast_ss(p); }

    static T codes(const std::uint8_t* p) {
        return _mm256_cvtepi32_ps(
            _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
    }

    static T halves(const std::uint8_t* p) {
        return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    }

    static T mul(T a, T b) { return _mm256_mul_ps(a, b); }

    static T fmadd(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }

    static void store(float* p, T v) { _mm256_storeu_ps(p, v); }
};

}  // namespace

// Two groups (32 rows, four chains of 8 lanes) keep the scales and sums in 8 of the 16
// registers.
RowKernel avx2RowKernel() {
    return {"avx2", &q8_0Rows<Ymm, 2>};
}

}  // namespace attnscope::ops::detail
