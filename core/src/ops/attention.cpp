#include "attnscope/ops/attention.h"

#include <cmath>
#include <limits>
#include <string>

#include <immintrin.h>

#include "attnscope/base/error.h"

namespace attnscope::ops {

float rowEntropy(const Eigen::Ref<const RowVector>& p) {
    double h = 0.0;  // accumulate in double: long rows of tiny terms lose digits in float
    for (Eigen::Index k = 0; k < p.size(); ++k) {
        const double x = p[k];
        if (x > 0.0) {
            h -= x * std::log(x);
        }
    }
    return static_cast<float>(h);
}

namespace {

// sum over k with p_k > 0 of p_k (logits_k + bias_k - max), each term in double as before,
// four at a time with AVX2 (every build has it, CMakeLists.txt): neither Eigen nor GCC 12
// vectorises the float-to-double conversions (as a scalar loop it was 5 % of a BERT-base pass
// at n = 512). The order of the additions is fixed, the same on every CPU.
double weightedShift(const float* p, const float* logits, const float* bias, Eigen::Index n,
                     float maxLogit) {
    const __m256d shift = _mm256_set1_pd(maxLogit);
    const __m256d zero = _mm256_setzero_pd();
    __m256d acc = zero;
    Eigen::Index k = 0;
    for (; k + 4 <= n; k += 4) {
        const __m256d pk = _mm256_cvtps_pd(_mm_loadu_ps(p + k));
        const __m256d shifted =
            _mm256_sub_pd(_mm256_add_pd(_mm256_cvtps_pd(_mm_loadu_ps(logits + k)),
                                        _mm256_cvtps_pd(_mm_loadu_ps(bias + k))),
                          shift);
        // A forbidden key's term is 0 · -inf: the mask drops it (and every key with p = 0).
        const __m256d term =
            _mm256_and_pd(_mm256_cmp_pd(pk, zero, _CMP_GT_OQ), _mm256_mul_pd(pk, shifted));
        acc = _mm256_add_pd(acc, term);
    }
    alignas(32) double lanes[4];
    _mm256_store_pd(lanes, acc);
    double sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    for (; k < n; ++k) {
        if (p[k] > 0.0f) {
            sum += static_cast<double>(p[k]) *
                   (static_cast<double>(logits[k]) + bias[k] - static_cast<double>(maxLogit));
        }
    }
    return sum;
}

// Softmax of one row of logits + bias into `p`; returns the row's entropy. The exponentials
// are Eigen's vectorised ones (libm's scalar expf and log were a fifth of a BERT-base pass).
// Entropy needs no logarithm per key: with p_j = e_j / z and e_j = exp(s_j - max),
// -sum p_j ln p_j = ln z - sum p_j (s_j - max), summed in double over the allowed keys. Every
// step is one vectorised sweep over the row (the weighted sum was a scalar loop: with the
// masking checks, 9 % of a BERT-base pass at n = 512).
float softmaxRow(const Eigen::Ref<const RowVector>& logits, const Eigen::Ref<const RowVector>& bias,
                 float maxLogit, Eigen::Ref<RowVector> p) {
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    // Subtract the max before exp, as torch.softmax does, so large logits cannot overflow.
    p = ((logits + bias).array() - maxLogit).exp();
    if (bias.minCoeff() == kNegInf) {
        // Eigen's exp clamps its argument near -88, so exp(-inf) comes out as a ~1e-39
        // denormal; forbidden keys are set to exactly 0 as PyTorch gives.
        p = (bias.array() == kNegInf).select(0.0f, p.array());
    }
    const float z = p.sum();
    p /= z;
    const double weighted = weightedShift(p.data(), logits.data(), bias.data(), p.size(), maxLogit);
    return static_cast<float>(std::log(static_cast<double>(z)) - weighted);
}

}  // namespace

std::vector<int> attentionInto(const Eigen::Ref<const Matrix>& q, const Eigen::Ref<const Matrix>& k,
                               const Eigen::Ref<const Matrix>& v, float scale, const Matrix& bias,
                               AttentionOutputs out, float softcap, float* scaledRowMaxAbs) {
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    out.logits.noalias() = q * k.transpose();
    out.logits *= scale;
    if (softcap > 0.0f) {
        if (scaledRowMaxAbs != nullptr) {
            Eigen::Map<Vector>(scaledRowMaxAbs, out.logits.rows()) =
                (bias.array() > kNegInf)
                    .select(out.logits.array().abs(), 0.0f)
                    .rowwise()
                    .maxCoeff();
        }
        // As transformers writes it: divide, tanh, multiply, each rounded to float32.
        out.logits = ((out.logits.array() / softcap).tanh() * softcap).matrix();
    }
    std::vector<int> fullyMasked;
    for (Eigen::Index row = 0; row < out.logits.rows(); ++row) {
        const float maxLogit = (out.logits.row(row) + bias.row(row)).maxCoeff();
        // Decided on the bias, as ONNX does: a row with no allowed key has no distribution.
        if (maxLogit == kNegInf || bias.row(row).maxCoeff() == kNegInf) {
            out.probs.row(row).setZero();
            out.entropy[row] = 0.0f;
            fullyMasked.push_back(static_cast<int>(row));
            continue;
        }
        out.entropy[row] =
            softmaxRow(out.logits.row(row), bias.row(row), maxLogit, out.probs.row(row));
    }
    out.output.noalias() = out.probs * v;
    return fullyMasked;
}

AttentionResult attention(const Matrix& q, const Matrix& k, const Matrix& v,
                          const AttentionOptions& options) {
    if (q.cols() != k.cols()) {
        throw InvalidArgument("attention: queries have width " + std::to_string(q.cols()) +
                              " but keys have width " + std::to_string(k.cols()));
    }
    if (k.rows() != v.rows()) {
        throw InvalidArgument("attention: " + std::to_string(k.rows()) + " keys but " +
                              std::to_string(v.rows()) + " values");
    }
    if (q.cols() == 0) {
        throw InvalidArgument("attention: key width is 0");
    }
    const int nQueries = static_cast<int>(q.rows());
    const int nKeys = static_cast<int>(k.rows());
    AttentionResult r;
    r.bias = buildBias(options.mask, nQueries, nKeys);
    r.logits.resize(nQueries, nKeys);
    r.probs.resize(nQueries, nKeys);
    r.output.resize(nQueries, v.cols());
    r.entropy.resize(nQueries);
    const float scale = options.scale.value_or(1.0f / std::sqrt(static_cast<float>(q.cols())));
    r.fullyMaskedRows =
        attentionInto(q, k, v, scale, r.bias, {r.logits, r.probs, r.output, r.entropy});
    return r;
}

}  // namespace attnscope::ops
