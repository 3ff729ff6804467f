// S11's row sums for one pair of heads (head_survey_sentence.cpp), several rows at a time.
//
// Why this exists: the logarithm of the mixture, one per cell and head pair (144 heads: 10 440
// pairs), was ~43 % of a BERT-base survey's time on one thread (tests/bench survey_bench), and
// glibc's log is a scalar call. glibcLog4/glibcLog8 run the steps of glibc 2.36's __log_fma (the
// variant glibc's ifunc picks on CPUs with FMA and AVX2, which every build of this project
// targets) on four or eight lanes: the same table and coefficients (read from that libm; they come
// from Arm's optimized-routines, MIT licence), the same fused and unfused operations in the same
// order. So each lane equals std::log bit for bit; arguments off glibc's main path (within ~6 % of
// 1, subnormal, zero, negative, infinite, NaN) are handed to std::log itself. survey_js_test checks
// both against std::log and the scalar loop, so a libm with another log shows up there.
//
// Layout: a head's map transposed and padded, element (row i, key j) at [j * ld + i], ld = n
// rounded up to kJsLanes, padding 0; its logs (log a, 0 where a = 0) the same way.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define ATTNSCOPE_SURVEY_JS_AVX2 1
#if defined(__AVX512F__)
#define ATTNSCOPE_SURVEY_JS_AVX512 1
#endif
#endif

namespace attnscope::analysis::detail {

// Rows summed together: eight on AVX-512 builds (-march=native on Zen 4/5), four on AVX2 ones.
#ifdef ATTNSCOPE_SURVEY_JS_AVX512
constexpr int kJsLanes = 8;
#else
constexpr int kJsLanes = 4;
#endif

inline int jsStride(int n) {
    return (n + kJsLanes - 1) / kJsLanes * kJsLanes;
}

// One cell of S11 as the reference writes it (0 when the two weights are equal: then M == P == Q
// and both terms are exactly 0).
inline double jsCell(double a, double b, double logA, double logB) {
    const double logM = std::log(0.5 * (a + b));
    return (a > 0 ? a * (logA - logM) : 0.0) + (b > 0 ? b * (logB - logM) : 0.0);
}

#ifdef ATTNSCOPE_SURVEY_JS_AVX2

struct LogEntry {
    double invc;
    double logc;
};

// glibc 2.36 __log_data: ln2 split in two, the polynomial A[0..4], and tab[128] {1/c, log c}.
inline constexpr double kLn2Hi = 0x1.62e42fefa3800p-1;
inline constexpr double kLn2Lo = 0x1.ef35793c76730p-45;
inline constexpr double kLogPoly[5] = {-0x1.0000000000001p-1, 0x1.555555551305bp-2,
                                       -0x1.fffffffeb4590p-3, 0x1.999b324f10111p-3,
                                       -0x1.55575e506c89fp-3};
inline constexpr LogEntry kLogTable[128] = {
    {0x1.734f0c3e0de9fp+0, -0x1.7cc7f79e69000p-2}, {0x1.713786a2ce91fp+0, -0x1.76feec20d0000p-2},
    {0x1.6f26008fab5a0p+0, -0x1.713e31351e000p-2}, {0x1.6d1a61f138c7dp+0, -0x1.6b85b38287800p-2},
    {0x1.6b1490bc5b4d1p+0, -0x1.65d5590807800p-2}, {0x1.69147332f0cbap+0, -0x1.602d076180000p-2},
    {0x1.6719f18224223p+0, -0x1.5a8ca86909000p-2}, {0x1.6524f99a51ed9p+0, -0x1.54f4356035000p-2},
    {0x1.63356aa8f24c4p+0, -0x1.4f637c36b4000p-2}, {0x1.614b36b9ddc14p+0, -0x1.49da7fda85000p-2},
    {0x1.5f66452c65c4cp+0, -0x1.445923989a800p-2}, {0x1.5d867b5912c4fp+0, -0x1.3edf439b0b800p-2},
    {0x1.5babccb5b90dep+0, -0x1.396ce448f7000p-2}, {0x1.59d61f2d91a78p+0, -0x1.3401e17bda000p-2},
    {0x1.5805612465687p+0, -0x1.2e9e2ef468000p-2}, {0x1.56397cee76bd3p+0, -0x1.2941b3830e000p-2},
    {0x1.54725e2a77f93p+0, -0x1.23ec58cda8800p-2}, {0x1.52aff42064583p+0, -0x1.1e9e129279000p-2},
    {0x1.50f22dbb2bddfp+0, -0x1.1956d2b48f800p-2}, {0x1.4f38f4734ded7p+0, -0x1.141679ab9f800p-2},
    {0x1.4d843cfde2840p+0, -0x1.0edd094ef9800p-2}, {0x1.4bd3ec078a3c8p+0, -0x1.09aa518db1000p-2},
    {0x1.4a27fc3e0258ap+0, -0x1.047e65263b800p-2}, {0x1.4880524d48434p+0, -0x1.feb224586f000p-3},
    {0x1.46dce1b192d0bp+0, -0x1.f474a7517b000p-3}, {0x1.453d9d3391854p+0, -0x1.ea4443d103000p-3},
    {0x1.43a2744b4845ap+0, -0x1.e020d44e9b000p-3}, {0x1.420b54115f8fbp+0, -0x1.d60a22977f000p-3},
    {0x1.40782da3ef4b1p+0, -0x1.cc00104959000p-3}, {0x1.3ee8f5d57fe8fp+0, -0x1.c202956891000p-3},
    {0x1.3d5d9a00b4ce9p+0, -0x1.b81178d811000p-3}, {0x1.3bd60c010c12bp+0, -0x1.ae2c9ccd3d000p-3},
    {0x1.3a5242b75dab8p+0, -0x1.a45402e129000p-3}, {0x1.38d22cd9fd002p+0, -0x1.9a877681df000p-3},
    {0x1.3755bc5847a1cp+0, -0x1.90c6d69483000p-3}, {0x1.35dce49ad36e2p+0, -0x1.87120a645c000p-3},
    {0x1.34679984dd440p+0, -0x1.7d68fb4143000p-3}, {0x1.32f5cceffcb24p+0, -0x1.73cb83c627000p-3},
    {0x1.3187775a10d49p+0, -0x1.6a39a9b376000p-3}, {0x1.301c8373e3990p+0, -0x1.60b3154b7a000p-3},
    {0x1.2eb4ebb95f841p+0, -0x1.5737d76243000p-3}, {0x1.2d50a0219a9d1p+0, -0x1.4dc7b8fc23000p-3},
    {0x1.2bef9a8b7fd2ap+0, -0x1.4462c51d20000p-3}, {0x1.2a91c7a0c1babp+0, -0x1.3b08abc830000p-3},
    {0x1.293726014b530p+0, -0x1.31b996b490000p-3}, {0x1.27dfa5757a1f5p+0, -0x1.2875490a44000p-3},
    {0x1.268b39b1d3bbfp+0, -0x1.1f3b9f879a000p-3}, {0x1.2539d838ff5bdp+0, -0x1.160c8252ca000p-3},
    {0x1.23eb7aac9083bp+0, -0x1.0ce7f57f72000p-3}, {0x1.22a012ba940b6p+0, -0x1.03cdc49fea000p-3},
    {0x1.2157996cc4132p+0, -0x1.f57bdbc4b8000p-4}, {0x1.201201dd2fc9bp+0, -0x1.e370896404000p-4},
    {0x1.1ecf4494d480bp+0, -0x1.d17983ef94000p-4}, {0x1.1d8f5528f6569p+0, -0x1.bf9674ed8a000p-4},
    {0x1.1c52311577e7cp+0, -0x1.adc79202f6000p-4}, {0x1.1b17c74cb26e9p+0, -0x1.9c0c3e7288000p-4},
    {0x1.19e010c2c1ab6p+0, -0x1.8a646b372c000p-4}, {0x1.18ab07bb670bdp+0, -0x1.78d01b3ac0000p-4},
    {0x1.1778a25efbcb6p+0, -0x1.674f145380000p-4}, {0x1.1648d354c31dap+0, -0x1.55e0e6d878000p-4},
    {0x1.151b990275fddp+0, -0x1.4485cdea1e000p-4}, {0x1.13f0ea432d24cp+0, -0x1.333d94d6aa000p-4},
    {0x1.12c8b7210f9dap+0, -0x1.22079f8c56000p-4}, {0x1.11a3028ecb531p+0, -0x1.10e4698622000p-4},
    {0x1.107fbda8434afp+0, -0x1.ffa6c6ad20000p-5}, {0x1.0f5ee0f4e6bb3p+0, -0x1.dda8d4a774000p-5},
    {0x1.0e4065d2a9fcep+0, -0x1.bbcece4850000p-5}, {0x1.0d244632ca521p+0, -0x1.9a1894012c000p-5},
    {0x1.0c0a77ce2981ap+0, -0x1.788583302c000p-5}, {0x1.0af2f83c636d1p+0, -0x1.5715e67d68000p-5},
    {0x1.09ddb98a01339p+0, -0x1.35c8a49658000p-5}, {0x1.08cabaf52e7dfp+0, -0x1.149e364154000p-5},
    {0x1.07b9f2f4e28fbp+0, -0x1.e72c082eb8000p-6}, {0x1.06ab58c358f19p+0, -0x1.a55f152528000p-6},
    {0x1.059eea5ecf92cp+0, -0x1.63d62cf818000p-6}, {0x1.04949cdd12c90p+0, -0x1.228fb8caa0000p-6},
    {0x1.038c6c6f0ada9p+0, -0x1.c317b20f90000p-7}, {0x1.02865137932a9p+0, -0x1.419355daa0000p-7},
    {0x1.0182427ea7348p+0, -0x1.81203c2ec0000p-8}, {0x1.008040614b195p+0, -0x1.0040979240000p-9},
    {0x1.fe01ff726fa1ap-1, 0x1.feff384900000p-9},  {0x1.fa11cc261ea74p-1, 0x1.7dc41353d0000p-7},
    {0x1.f6310b081992ep-1, 0x1.3cea3c4c28000p-6},  {0x1.f25f63ceeadcdp-1, 0x1.b9fc114890000p-6},
    {0x1.ee9c8039113e7p-1, 0x1.1b0d8ce110000p-5},  {0x1.eae8078cbb1abp-1, 0x1.58a5bd001c000p-5},
    {0x1.e741aa29d0c9bp-1, 0x1.95c8340d88000p-5},  {0x1.e3a91830a99b5p-1, 0x1.d276aef578000p-5},
    {0x1.e01e009609a56p-1, 0x1.07598e598c000p-4},  {0x1.dca01e577bb98p-1, 0x1.253f5e30d2000p-4},
    {0x1.d92f20b7c9103p-1, 0x1.42edd8b380000p-4},  {0x1.d5cac66fb5ccep-1, 0x1.606598757c000p-4},
    {0x1.d272caa5ede9dp-1, 0x1.7da76356a0000p-4},  {0x1.cf26e3e6b2ccdp-1, 0x1.9ab434e1c6000p-4},
    {0x1.cbe6da2a77902p-1, 0x1.b78c7bb0d6000p-4},  {0x1.c8b266d37086dp-1, 0x1.d431332e72000p-4},
    {0x1.c5894bd5d5804p-1, 0x1.f0a3171de6000p-4},  {0x1.c26b533bb9f8cp-1, 0x1.067152b914000p-3},
    {0x1.bf583eeece73fp-1, 0x1.147858292b000p-3},  {0x1.bc4fd75db96c1p-1, 0x1.2266ecdca3000p-3},
    {0x1.b951e0c864a28p-1, 0x1.303d7a6c55000p-3},  {0x1.b65e2c5ef3e2cp-1, 0x1.3dfc33c331000p-3},
    {0x1.b374867c9888bp-1, 0x1.4ba366b7a8000p-3},  {0x1.b094b211d304ap-1, 0x1.5933928d1f000p-3},
    {0x1.adbe885f2ef7ep-1, 0x1.66acd2418f000p-3},  {0x1.aaf1d31603da2p-1, 0x1.740f8ec669000p-3},
    {0x1.a82e63fd358a7p-1, 0x1.815c0f51af000p-3},  {0x1.a5740ef09738bp-1, 0x1.8e92954f68000p-3},
    {0x1.a2c2a90ab4b27p-1, 0x1.9bb3602f84000p-3},  {0x1.a01a01393f2d1p-1, 0x1.a8bed1c2c0000p-3},
    {0x1.9d79f24db3c1bp-1, 0x1.b5b515c01d000p-3},  {0x1.9ae2505c7b190p-1, 0x1.c2967ccbcc000p-3},
    {0x1.9852ef297ce2fp-1, 0x1.cf635d5486000p-3},  {0x1.95cbaeea44b75p-1, 0x1.dc1bd3446c000p-3},
    {0x1.934c69de74838p-1, 0x1.e8c01b8cfe000p-3},  {0x1.90d4f2f6752e6p-1, 0x1.f5509c0179000p-3},
    {0x1.8e6528effd79dp-1, 0x1.00e6c121fb800p-2},  {0x1.8bfce9fcc007cp-1, 0x1.071b80e93d000p-2},
    {0x1.899c0dabec30ep-1, 0x1.0d46b9e867000p-2},  {0x1.87427aa2317fbp-1, 0x1.13687334bd000p-2},
    {0x1.84f00acb39a08p-1, 0x1.1980d67234800p-2},  {0x1.82a49e8653e55p-1, 0x1.1f8ffe0cc8000p-2},
    {0x1.8060195f40260p-1, 0x1.2595fd7636800p-2},  {0x1.7e22563e0a329p-1, 0x1.2b9300914a800p-2},
    {0x1.7beb377dcb5adp-1, 0x1.3187210436000p-2},  {0x1.79baa679725c2p-1, 0x1.377266dec1800p-2},
    {0x1.77907f2170657p-1, 0x1.3d54ffbaf3000p-2},  {0x1.756cadbd6130cp-1, 0x1.432eee32fe000p-2},
};

// std::log of four lanes, bit for bit (see the top of this file).
inline __m256d glibcLog4(__m256d x) {
    const __m256i ix = _mm256_castpd_si256(x);
    const auto c64 = [](std::uint64_t v) { return _mm256_set1_epi64x(static_cast<long long>(v)); };
    // glibc's main path: 0x0010 <= top 16 bits < 0x7ff0, and not 1 - 2^-4 <= x < 1 + 0x1.09p-4.
    const __m256i normal = _mm256_and_si256(_mm256_cmpgt_epi64(ix, c64(0x000fffffffffffff)),
                                            _mm256_cmpgt_epi64(c64(0x7ff0000000000000), ix));
    const __m256i near1 = _mm256_and_si256(_mm256_cmpgt_epi64(ix, c64(0x3fedffffffffffff)),
                                           _mm256_cmpgt_epi64(c64(0x3ff1090000000000), ix));
    const __m256i tmp = _mm256_sub_epi64(ix, c64(0x3fe6000000000000));
    const __m256i index = _mm256_and_si256(_mm256_srli_epi64(tmp, 45), c64(127));
    // k = (int64) tmp >> 52, then (double) k via 0x1.8p52 + k (exact for |k| < 2^51).
    const __m256i k =
        _mm256_sub_epi64(_mm256_xor_si256(_mm256_srli_epi64(tmp, 52), c64(0x800)), c64(0x800));
    const __m256d kd =
        _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(c64(0x4338000000000000), k)),
                      _mm256_set1_pd(0x1.8p52));
    const __m256d z =
        _mm256_castsi256_pd(_mm256_sub_epi64(ix, _mm256_and_si256(tmp, c64(0xfff0000000000000))));
    const __m256i slot = _mm256_slli_epi64(index, 1);  // two doubles per entry
    const __m256d invc = _mm256_i64gather_pd(&kLogTable[0].invc, slot, 8);
    const __m256d logc = _mm256_i64gather_pd(&kLogTable[0].logc, slot, 8);
    const auto c = [](double v) { return _mm256_set1_pd(v); };
    const __m256d r = _mm256_fmadd_pd(z, invc, c(-1.0));
    const __m256d w = _mm256_fmadd_pd(kd, c(kLn2Hi), logc);
    const __m256d hi = _mm256_add_pd(r, w);
    const __m256d r2 = _mm256_mul_pd(r, r);
    const __m256d lo = _mm256_fmadd_pd(kd, c(kLn2Lo), _mm256_add_pd(_mm256_sub_pd(w, hi), r));
    const __m256d p12 = _mm256_fmadd_pd(r, c(kLogPoly[2]), c(kLogPoly[1]));
    const __m256d p34 = _mm256_fmadd_pd(r, c(kLogPoly[4]), c(kLogPoly[3]));
    const __m256d lo0 = _mm256_fmadd_pd(r2, c(kLogPoly[0]), lo);
    const __m256d r3 = _mm256_mul_pd(r, r2);
    const __m256d tail = _mm256_fmadd_pd(p34, r2, p12);
    __m256d y = _mm256_add_pd(_mm256_fmadd_pd(r3, tail, lo0), hi);
    const __m256i main = _mm256_andnot_si256(near1, normal);
    if (_mm256_movemask_pd(_mm256_castsi256_pd(main)) != 0xf) {
        alignas(32) double in[4];
        alignas(32) double out[4];
        alignas(32) std::int64_t ok[4];
        _mm256_store_pd(in, x);
        _mm256_store_pd(out, y);
        _mm256_store_si256(reinterpret_cast<__m256i*>(ok), main);
        for (int l = 0; l < 4; ++l) {
            if (ok[l] == 0) {
                out[l] = std::log(in[l]);
            }
        }
        y = _mm256_load_pd(out);
    }
    return y;
}

#endif

#ifdef ATTNSCOPE_SURVEY_JS_AVX512
// All eight lanes. The masked forms of shifts, gathers and widening are used unmasked because the
// plain ones start from _mm512_undefined_*, which GCC 12 flags as maybe-uninitialized (-Werror).
inline constexpr __mmask8 kAll = 0xff;

// The same on eight lanes.
inline __m512d glibcLog8(__m512d x) {
    const __m512i ix = _mm512_castpd_si512(x);
    const auto c64 = [](std::uint64_t v) { return _mm512_set1_epi64(static_cast<long long>(v)); };
    const __mmask8 normal =
        static_cast<__mmask8>(_mm512_cmpge_epu64_mask(ix, c64(0x0010000000000000)) &
                              _mm512_cmplt_epu64_mask(ix, c64(0x7ff0000000000000)));
    const __mmask8 near1 = _mm512_cmplt_epu64_mask(_mm512_sub_epi64(ix, c64(0x3fee000000000000)),
                                                   c64(0x0003090000000000));
    const __m512i tmp = _mm512_sub_epi64(ix, c64(0x3fe6000000000000));
    const __m512i index = _mm512_and_si512(_mm512_maskz_srli_epi64(kAll, tmp, 45), c64(127));
    const __m512i slot = _mm512_add_epi64(index, index);
    const __m512d kd =
        _mm512_sub_pd(_mm512_castsi512_pd(_mm512_add_epi64(c64(0x4338000000000000),
                                                           _mm512_maskz_srai_epi64(kAll, tmp, 52))),
                      _mm512_set1_pd(0x1.8p52));
    const __m512d z =
        _mm512_castsi512_pd(_mm512_sub_epi64(ix, _mm512_and_si512(tmp, c64(0xfff0000000000000))));
    const __m512d invc =
        _mm512_mask_i64gather_pd(_mm512_setzero_pd(), kAll, slot, &kLogTable[0].invc, 8);
    const __m512d logc =
        _mm512_mask_i64gather_pd(_mm512_setzero_pd(), kAll, slot, &kLogTable[0].logc, 8);
    const auto c = [](double v) { return _mm512_set1_pd(v); };
    const __m512d r = _mm512_fmadd_pd(z, invc, c(-1.0));
    const __m512d w = _mm512_fmadd_pd(kd, c(kLn2Hi), logc);
    const __m512d hi = _mm512_add_pd(r, w);
    const __m512d r2 = _mm512_mul_pd(r, r);
    const __m512d lo = _mm512_fmadd_pd(kd, c(kLn2Lo), _mm512_add_pd(_mm512_sub_pd(w, hi), r));
    const __m512d p12 = _mm512_fmadd_pd(r, c(kLogPoly[2]), c(kLogPoly[1]));
    const __m512d p34 = _mm512_fmadd_pd(r, c(kLogPoly[4]), c(kLogPoly[3]));
    const __m512d lo0 = _mm512_fmadd_pd(r2, c(kLogPoly[0]), lo);
    const __m512d r3 = _mm512_mul_pd(r, r2);
    const __m512d tail = _mm512_fmadd_pd(p34, r2, p12);
    __m512d y = _mm512_add_pd(_mm512_fmadd_pd(r3, tail, lo0), hi);
    const auto main = static_cast<__mmask8>(normal & ~near1);
    if (main != 0xff) {
        alignas(64) double in[8];
        alignas(64) double out[8];
        _mm512_store_pd(in, x);
        _mm512_store_pd(out, y);
        for (int l = 0; l < 8; ++l) {
            if (((main >> l) & 1) == 0) {
                out[l] = std::log(in[l]);
            }
        }
        y = _mm512_load_pd(out);
    }
    return y;
}
#endif

#ifdef ATTNSCOPE_SURVEY_JS_AVX512
inline void jsRowSums8(const float* p, const float* q, const double* logP, const double* logQ,
                       int n, double* sums) {
    const int ld = jsStride(n);
    const __m512d zero = _mm512_setzero_pd();
    const __m512d half = _mm512_set1_pd(0.5);
    for (int i = 0; i < ld; i += 8) {
        __m512d sum = zero;
        for (int j = 0; j < n; ++j) {
            const std::size_t c = static_cast<std::size_t>(j) * ld + i;
            const __m512d a = _mm512_maskz_cvtps_pd(kAll, _mm256_loadu_ps(p + c));
            const __m512d b = _mm512_maskz_cvtps_pd(kAll, _mm256_loadu_ps(q + c));
            const __mmask8 differ = _mm512_cmp_pd_mask(a, b, _CMP_NEQ_UQ);
            if (differ == 0) {
                continue;
            }
            const __m512d logM =
                glibcLog8(_mm512_mask_mul_pd(half, differ, half, _mm512_add_pd(a, b)));
            const __m512d ta = _mm512_maskz_mul_pd(_mm512_cmp_pd_mask(a, zero, _CMP_GT_OQ), a,
                                                   _mm512_sub_pd(_mm512_loadu_pd(logP + c), logM));
            const __m512d tb = _mm512_maskz_mul_pd(_mm512_cmp_pd_mask(b, zero, _CMP_GT_OQ), b,
                                                   _mm512_sub_pd(_mm512_loadu_pd(logQ + c), logM));
            sum = _mm512_mask_add_pd(sum, differ, sum, _mm512_add_pd(ta, tb));
        }
        _mm512_storeu_pd(sums + i, sum);
    }
}
#endif

#ifdef ATTNSCOPE_SURVEY_JS_AVX2
inline void jsRowSums4(const float* p, const float* q, const double* logP, const double* logQ,
                       int n, double* sums) {
    const int ld = jsStride(n);
    const __m256d zero = _mm256_setzero_pd();
    const __m256d half = _mm256_set1_pd(0.5);
    for (int i = 0; i < ld; i += 4) {
        __m256d sum = zero;
        for (int j = 0; j < n; ++j) {
            const std::size_t c = static_cast<std::size_t>(j) * ld + i;
            const __m256d a = _mm256_cvtps_pd(_mm_loadu_ps(p + c));
            const __m256d b = _mm256_cvtps_pd(_mm_loadu_ps(q + c));
            const __m256d differ = _mm256_cmp_pd(a, b, _CMP_NEQ_UQ);
            if (_mm256_movemask_pd(differ) == 0) {
                continue;
            }
            // Equal lanes take 0.5 (any argument on the main path): their sum is masked off.
            const __m256d m =
                _mm256_blendv_pd(half, _mm256_mul_pd(half, _mm256_add_pd(a, b)), differ);
            const __m256d logM = glibcLog4(m);
            const __m256d ta =
                _mm256_and_pd(_mm256_cmp_pd(a, zero, _CMP_GT_OQ),
                              _mm256_mul_pd(a, _mm256_sub_pd(_mm256_loadu_pd(logP + c), logM)));
            const __m256d tb =
                _mm256_and_pd(_mm256_cmp_pd(b, zero, _CMP_GT_OQ),
                              _mm256_mul_pd(b, _mm256_sub_pd(_mm256_loadu_pd(logQ + c), logM)));
            // + 0.0 where equal: the sum starts at +0 and never becomes -0, so it is unchanged.
            sum = _mm256_add_pd(sum, _mm256_and_pd(differ, _mm256_add_pd(ta, tb)));
        }
        _mm256_storeu_pd(sums + i, sum);
    }
}
#endif

inline void jsRowSumsScalar(const float* p, const float* q, const double* logP, const double* logQ,
                            int n, double* sums) {
    const int ld = jsStride(n);
    for (int i = 0; i < ld; ++i) {
        double sum = 0;
        for (int j = 0; j < n; ++j) {
            const std::size_t c = static_cast<std::size_t>(j) * ld + i;
            if (p[c] != q[c]) {
                sum += jsCell(p[c], q[c], logP[c], logQ[c]);
            }
        }
        sums[i] = sum;
    }
}

// sums[i] = sum over keys j, in key order, of jsCell for row i of maps p and q (transposed and
// padded as above, logs likewise), i < ld = jsStride(n); equal weights add nothing. The same
// doubles as the scalar loop: each lane adds its row's cells in key order.
inline void jsRowSums(const float* p, const float* q, const double* logP, const double* logQ, int n,
                      double* sums) {
#if defined(ATTNSCOPE_SURVEY_JS_AVX512)
    jsRowSums8(p, q, logP, logQ, n, sums);
#elif defined(ATTNSCOPE_SURVEY_JS_AVX2)
    jsRowSums4(p, q, logP, logQ, n, sums);
#else
    jsRowSumsScalar(p, q, logP, logQ, n, sums);
#endif
}

}  // namespace attnscope::analysis::detail
