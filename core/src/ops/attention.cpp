#include "attnscope/ops/attention.h"

#include <cmath>
#include <limits>
#include <string>

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

// Softmax of one row of logits + bias into `p`; returns the row's entropy. The exponentials
// are Eigen's vectorised ones (libm's scalar expf and log were a fifth of a BERT-base pass).
// Entropy needs no logarithm per key: with p_j = e_j / z and e_j = exp(s_j - max),
// -sum p_j ln p_j = ln z - sum p_j (s_j - max), summed in double over the allowed keys.
float softmaxRow(const Eigen::Ref<const RowVector>& logits, const Eigen::Ref<const RowVector>& bias,
                 float maxLogit, Eigen::Ref<RowVector> p) {
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    // Subtract the max before exp, as torch.softmax does, so large logits cannot overflow.
    p = ((logits + bias).array() - maxLogit).exp();
    if (bias.minCoeff() == kNegInf) {
        // Eigen's exp clamps its argument near -88, so exp(-inf) comes out as a ~1e-39
        // denormal; forbidden keys are set to exactly 0 as PyTorch gives.
        for (Eigen::Index k = 0; k < p.size(); ++k) {
            if (bias[k] == kNegInf) {
                p[k] = 0.0f;
            }
        }
    }
    const float z = p.sum();
    p /= z;
    double weighted = 0.0;
    for (Eigen::Index k = 0; k < p.size(); ++k) {
        if (p[k] > 0.0f) {
            weighted +=
                static_cast<double>(p[k]) * (static_cast<double>(logits[k]) + bias[k] - maxLogit);
        }
    }
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
