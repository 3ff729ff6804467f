// The one-row product's kernel for AVX-512 F/VL, compiled with its own -m flags and run only
// where the CPU has it (row_product.cpp asks once).
#include "row_kernel_impl.h"

#if !defined(__AVX512F__) || !defined(__AVX512VL__)
#error "row_kernel_avx512.cpp needs -mavx512f -mavx512vl (see core/src/ops/CMakeLists.txt)"
#endif

namespace attnscope::ops::detail {

namespace {

// A group of 16 rows of W in one register.
struct Zmm {
    using T = __m512;
    static constexpr int kLanes = 16;

    static T zero() { return _mm512_setzero_ps(); }

    static T broadcast(const float* p) { return _mm512_set1_ps(*p); }

    static T codes(const std::uint8_t* p) {
        return _mm512_cvtepi32_ps(
            _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
    }

    static T halves(const std::uint8_t* p) {
        return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    }

    static T mul(T a, T b) { return _mm512_mul_ps(a, b); }

    static T fmadd(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }

    static void store(float* p, T v) { _mm512_storeu_ps(p, v); }
};

}  // namespace

// Eight groups (128 rows: eight chains, their scales and sums in 16 of the 32 registers): on one
// core of an AMD EPYC (Zen 5), the LM head of a 1 B Llama (128256 × 2048) read at 29 GB/s,
// against 27 with four groups, 17 with two and 15 with the codes transposed at run time from
// the stored layout instead of grouped at load.
RowKernel avx512RowKernel() {
    return {"avx512", &q8_0Rows<Zmm, 8>};
}

}  // namespace attnscope::ops::detail
