// The 8-bit product's kernel for AVX2 + FMA, the instruction set every AttnScope build requires
// (compiled with -mavx2 -mfma whatever the build's -march).
#include "q8_kernel_impl.h"

namespace attnscope::ops::detail {

namespace {

// 8 activation rows per vector. vpmaddubsw adds pairs of u8 × s8 products into int16, with
// saturation: (code + 128) · w pairs stay below 2^15 only for |w| ≤ 64, so 8-bit weight codes
// (Q8_0) take the sign trick instead (|w| × a·sign(w), a the signed code: ≤ 2 · 128 · 127).
// vpmaddwd then multiplies the int16 pairs by the group's scale (or 1) and adds them, exactly.
struct Avx2 {
    using I = __m256i;
    using F = __m256;
    static constexpr int kLanes = 8;
    static constexpr bool kSignTrick = true;

    static I zero() { return _mm256_setzero_si256(); }

    static I set1(std::int32_t v) { return _mm256_set1_epi32(v); }

    static I load(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }

    static I bcast(const void* p) { return _mm256_set1_epi32(load32(p)); }

    static I dot16(I acc, I a, I b) { return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b)); }

    static F zeroF() { return _mm256_setzero_ps(); }

    static F loadF(const float* p) { return _mm256_loadu_ps(p); }

    static F bcastF(const float* p) { return _mm256_broadcast_ss(p); }

    static F cvt(I v) { return _mm256_cvtepi32_ps(v); }

    static F mul(F a, F b) { return _mm256_mul_ps(a, b); }

    static F fmadd(F a, F b, F c) { return _mm256_fmadd_ps(a, b, c); }

    static F fnmadd(F a, F b, F c) { return _mm256_fnmadd_ps(a, b, c); }

    static void storeF(float* p, F v) { _mm256_storeu_ps(p, v); }

    // sums[c][v] += scale[c] · Σ over GQ steps of vector v's 4 codes × row c's 4 codes. The
    // scale (an int16, |scale| ≤ 128) rides in vpmaddwd as the pair (scale, scale).
    template <int V, int C, int GQ, bool kScaled, bool kSigned>
    static void group(I (&sums)[C][V], const std::uint8_t* act, const std::int8_t* const (&w)[C],
                      const std::int32_t (&scale)[C]) {
        I pair[C];
#pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
            pair[c] = kScaled ? set1(scale[c]) : _mm256_set1_epi16(1);
        }
#pragma GCC unroll 8
        for (int q = 0; q < GQ; ++q) {
            I a[V];
#pragma GCC unroll 4
            for (int v = 0; v < V; ++v) {
                a[v] = load(act + (q * V + v) * kLanes * 4);
            }
#pragma GCC unroll 16
            for (int c = 0; c < C; ++c) {
                const I wv = bcast(w[c] + 4 * q);
#pragma GCC unroll 4
                for (int v = 0; v < V; ++v) {
                    const I p = kSigned ? _mm256_maddubs_epi16(_mm256_abs_epi8(wv),
                                                               _mm256_sign_epi8(a[v], wv))
                                        : _mm256_maddubs_epi16(a[v], wv);
                    sums[c][v] = _mm256_add_epi32(sums[c][v], _mm256_madd_epi16(p, pair[c]));
                }
            }
        }
    }
};

}  // namespace

// 8 activation rows × 4 weight rows: 4 block sums, 4 scale pairs and 4 fp32 chains of the 16
// registers.
Q8Kernel avx2Q8Kernel() {
    return {"avx2", 8, 4, true, 64, &run<Avx2, 1, 4>};
}

}  // namespace attnscope::ops::detail
