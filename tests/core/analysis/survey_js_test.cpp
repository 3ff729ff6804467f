// S11's kernel (core/src/analysis/survey_js.h): its four-lane log must equal std::log bit for bit,
// and its row sums the scalar loop the survey used before it, so the survey's distances keep
// their bits (issue 18's speed work may not change a result).
#include "analysis/survey_js.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace {

using namespace attnscope::analysis::detail;

std::uint64_t bitsOf(double x) {
    std::uint64_t u = 0;
    std::memcpy(&u, &x, sizeof u);
    return u;
}

#ifdef ATTNSCOPE_SURVEY_JS_AVX2
double fromBits(std::uint64_t u) {
    double x = 0;
    std::memcpy(&x, &u, sizeof x);
    return x;
}

// Every lane of `log` (W lanes at a time) against std::log; returns the number that differ.
template <int W, typename LogFn>
int logMismatches(const std::vector<double>& xs, LogFn log) {
    int bad = 0;
    for (std::size_t i = 0; i + W <= xs.size(); i += W) {
        double out[W];
        log(xs.data() + i, out);
        for (int l = 0; l < W; ++l) {
            const double want = std::log(xs[i + static_cast<std::size_t>(l)]);
            if (bitsOf(out[l]) != bitsOf(want) && bad++ < 5) {
                ADD_FAILURE() << "log(" << xs[i + static_cast<std::size_t>(l)] << "): " << out[l]
                              << " instead of " << want;
            }
        }
    }
    return bad;
}
#endif

TEST(SurveyJs, VectorLogIsStdLogBitForBit) {
#ifndef ATTNSCOPE_SURVEY_JS_AVX2
    GTEST_SKIP() << "built without AVX2 and FMA: the kernel uses std::log itself";
#else
    std::mt19937_64 random(18);
    std::vector<double> xs;
    // Any positive finite double (the main path and its edges) ...
    std::uniform_int_distribution<std::uint64_t> anyBits(1, 0x7fefffffffffffff);
    for (int i = 0; i < 400000; ++i) {
        xs.push_back(fromBits(anyBits(random)));
    }
    // ... mixtures of two float weights, as S11 takes them, most of them in (0, 1] ...
    std::uniform_real_distribution<float> weight(0.0f, 1.0f);
    for (int i = 0; i < 400000; ++i) {
        const float a = weight(random) * (i % 3 == 0 ? 1e-6f : 1.0f);
        const float b = i % 5 == 0 ? 0.0f : weight(random);
        xs.push_back(0.5 * (static_cast<double>(a) + static_cast<double>(b)));
    }
    // ... and the special cases glibc takes off its main path, with their neighbours.
    for (const std::uint64_t edge :
         {0x3fee000000000000ull, 0x3ff1090000000000ull, 0x0010000000000000ull,
          0x7ff0000000000000ull, 0x3ff0000000000000ull, 0x0000000000000001ull}) {
        for (int d = -2; d <= 2; ++d) {
            xs.push_back(fromBits(edge + static_cast<std::uint64_t>(d)));
        }
    }
    for (const double x : {0.0, -0.0, -1.0, 1.0, std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN(), 0.9375, 1.0647, 0.5, 2.0}) {
        xs.push_back(x);
    }
    while (xs.size() % 8 != 0) {
        xs.push_back(0.25);
    }
    EXPECT_EQ(
        logMismatches<4>(xs, [](const double* x,
                                double* y) { _mm256_storeu_pd(y, glibcLog4(_mm256_loadu_pd(x))); }),
        0);
#ifdef ATTNSCOPE_SURVEY_JS_AVX512
    EXPECT_EQ(
        logMismatches<8>(xs, [](const double* x,
                                double* y) { _mm512_storeu_pd(y, glibcLog8(_mm512_loadu_pd(x))); }),
        0);
#endif
#endif
}

// The survey's S11 row loop before the kernel, on row-major maps.
double scalarRowSum(const std::vector<float>& p, const std::vector<float>& q, int n, int i) {
    double sum = 0;
    for (int j = 0; j < n; ++j) {
        const std::size_t c = static_cast<std::size_t>(i) * n + j;
        const double a = p[c];
        const double b = q[c];
        if (a == b) {
            continue;
        }
        const double logM = std::log(0.5 * (a + b));
        const double logA = a > 0 ? std::log(a) : 0.0;
        const double logB = b > 0 ? std::log(b) : 0.0;
        sum += (a > 0 ? a * (logA - logM) : 0.0) + (b > 0 ? b * (logB - logM) : 0.0);
    }
    return sum;
}

// Softmax-like rows: some focused (a weight near 1, glibc's other path), some with exact zeros
// (masked keys), some cells equal in both maps.
std::vector<float> randomMap(std::mt19937_64& random, int n) {
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    std::vector<float> m(static_cast<std::size_t>(n) * n);
    for (int i = 0; i < n; ++i) {
        float total = 0;
        for (int j = 0; j < n; ++j) {
            float v = u(random);
            v = (i % 4 == 1 && j == i) ? 400.0f : v;  // focused row
            v = (i % 4 == 2 && j > i) ? 0.0f : v;     // causal row
            m[static_cast<std::size_t>(i) * n + j] = v;
            total += v;
        }
        for (int j = 0; j < n; ++j) {
            m[static_cast<std::size_t>(i) * n + j] /= total;
        }
    }
    return m;
}

void transpose(const std::vector<float>& m, int n, std::vector<float>& t, std::vector<double>& lg) {
    const auto ld = static_cast<std::size_t>(jsStride(n));
    t.assign(ld * n, 0.0f);
    lg.assign(ld * n, 0.0);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            const float v = m[static_cast<std::size_t>(i) * n + j];
            t[static_cast<std::size_t>(j) * ld + i] = v;
            lg[static_cast<std::size_t>(j) * ld + i] =
                v > 0 ? std::log(static_cast<double>(v)) : 0.0;
        }
    }
}

TEST(SurveyJs, RowSumsEqualTheScalarLoopBitForBit) {
    std::mt19937_64 random(7);
    for (const int n : {1, 2, 3, 4, 5, 7, 8, 16, 33, 61}) {
        const std::vector<float> p = randomMap(random, n);
        std::vector<float> q = randomMap(random, n);
        for (std::size_t c = 0; c < q.size(); c += 3) {
            q[c] = p[c];  // equal cells add nothing
        }
        std::vector<float> pt, qt;
        std::vector<double> lp, lq;
        transpose(p, n, pt, lp);
        transpose(q, n, qt, lq);
        std::vector<double> sums(static_cast<std::size_t>(jsStride(n)), -1.0);
        jsRowSums(pt.data(), qt.data(), lp.data(), lq.data(), n, sums.data());
        for (int i = 0; i < n; ++i) {
            EXPECT_EQ(bitsOf(sums[static_cast<std::size_t>(i)]), bitsOf(scalarRowSum(p, q, n, i)))
                << "n " << n << " row " << i;
        }
        jsRowSums(pt.data(), pt.data(), lp.data(), lp.data(), n, sums.data());
        for (int i = 0; i < n; ++i) {
            EXPECT_EQ(bitsOf(sums[static_cast<std::size_t>(i)]), bitsOf(0.0))
                << "a map with itself";
        }
    }
}

}  // namespace
