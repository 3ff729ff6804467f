// The 8-bit product's kernel for AVX-512 with VNNI (compiled with -mavx512f -mavx512bw
// -mavx512vl -mavx512vnni whatever the build's -march; run only where the CPU has them).
#include "q8_kernel_impl.h"

#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VNNI__)
#error "q8_kernel_avx512.cpp needs -mavx512f -mavx512bw -mavx512vnni"
#endif

namespace attnscope::ops::detail {

namespace {

// 16 activation rows per vector. vpdpbusd adds the four u8 × s8 products of each lane to an
// int32, exactly (no int16 step to saturate), so every weight type takes the +128 offset.
struct Avx512 {
    using I = __m512i;
    using F = __m512;
    static constexpr int kLanes = 16;
    static constexpr bool kSignTrick = false;

    static I zero() { return _mm512_setzero_si512(); }

    static I set1(std::int32_t v) { return _mm512_set1_epi32(v); }

    static I load(const void* p) { return _mm512_loadu_si512(p); }

    static I bcast(const void* p) { return _mm512_set1_epi32(load32(p)); }

    // acc + Σ over each lane's int16 pairs of a · b (vpdpwssd).
    static I dot16(I acc, I a, I b) { return _mm512_dpwssd_epi32(acc, a, b); }

    static F zeroF() { return _mm512_setzero_ps(); }

    static F loadF(const float* p) { return _mm512_loadu_ps(p); }

    static F bcastF(const float* p) { return _mm512_set1_ps(*p); }

    static F cvt(I v) { return _mm512_cvtepi32_ps(v); }

    static F mul(F a, F b) { return _mm512_mul_ps(a, b); }

    static F fmadd(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }

    static F fnmadd(F a, F b, F c) { return _mm512_fnmadd_ps(a, b, c); }

    static void storeF(float* p, F v) { _mm512_storeu_ps(p, v); }

    // sums[c][v] += scale[c] · Σ over GQ steps of vector v's 4 codes × row c's 4 codes. Scaled
    // groups sum apart first and are multiplied once (vpmulld) at the group's end.
    template <int V, int C, int GQ, bool kScaled, bool /*kSigned*/>
    static void group(I (&sums)[C][V], const std::uint8_t* act, const std::int8_t* const (&w)[C],
                      const std::int32_t (&scale)[C]) {
        I acc[C][V];
#pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
#pragma GCC unroll 4
            for (int v = 0; v < V; ++v) {
                acc[c][v] = kScaled ? zero() : sums[c][v];
            }
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
                    acc[c][v] = _mm512_dpbusd_epi32(acc[c][v], a[v], wv);
                }
            }
        }
#pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
            const I s = set1(scale[c]);
#pragma GCC unroll 4
            for (int v = 0; v < V; ++v) {
                sums[c][v] = kScaled
                                 ? _mm512_add_epi32(sums[c][v], _mm512_mullo_epi32(acc[c][v], s))
                                 : acc[c][v];
            }
        }
    }
};

}  // namespace

// One vector of 16 activation rows × 8 weight rows: 8 accumulators, 8 block sums and 8 fp32
// chains of the 32 registers. (Two vectors × 4 or 6 rows, fewer broadcasts per vpdpbusd,
// measured as fast for Q4_K and 25-40 % slower for Q6_K and Q8_0.)
Q8Kernel avx512Q8Kernel() {
    return {"avx512vnni", 16, 8, false, 128, &run<Avx512, 1, 8>};
}

}  // namespace attnscope::ops::detail
