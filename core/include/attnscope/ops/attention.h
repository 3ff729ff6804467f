// THE attention primitive, following PyTorch's scaled_dot_product_attention reference and
// ONNX's Attention op:
//   logits = Q·Kᵀ·scale          (scale defaults to 1/sqrt(d_k))
//   probs  = softmax(logits + bias) over keys   (bias: 0 allowed, -inf forbidden, or finite)
//   output = probs·V             (the value width may differ from the key width)
// A query row whose keys are all forbidden gets zero weights and a zero output (PyTorch's
// _safe_softmax, ONNX's errata), never NaN, and is reported in `fullyMaskedRows`.
// Pure function of its arguments; thread-safe.
#pragma once

#include <optional>
#include <vector>

#include "attnscope/base/tensor.h"
#include "attnscope/ops/mask.h"

namespace attnscope::ops {

struct AttentionOptions {
    std::optional<float> scale;  // default 1/sqrt(d_k)
    MaskSpec mask;
};

struct AttentionResult {
    Matrix logits;   // [nQueries, nKeys] scaled, before the mask
    Matrix bias;     // [nQueries, nKeys] the mask that was applied, as an additive bias
    Matrix probs;    // [nQueries, nKeys] rows sum to 1 (0 for fully masked rows)
    Matrix output;   // [nQueries, headDimV]
    Vector entropy;  // [nQueries] nats; 0 for fully masked rows
    std::vector<int> fullyMaskedRows;
};

// q: [nQueries, headDimK], k: [nKeys, headDimK], v: [nKeys, headDimV].
// Throws InvalidArgument when the shapes disagree.
AttentionResult attention(const Matrix& q, const Matrix& k, const Matrix& v,
                          const AttentionOptions& options = {});

// Views into caller-owned storage, so the forward pass can write every head's record in
// place without copies.
struct AttentionOutputs {
    Eigen::Ref<Matrix> logits;   // [nQueries, nKeys]
    Eigen::Ref<Matrix> probs;    // [nQueries, nKeys]
    Eigen::Ref<Matrix> output;   // [nQueries, headDimV]
    Eigen::Ref<Vector> entropy;  // [nQueries]
};

// The same computation with a prebuilt bias (from buildBias), writing into `out`.
// Returns the fully masked rows. Shapes are the caller's responsibility. A positive `softcap`
// soft-caps the scaled logits before the bias is added, tanh(logits / cap) · cap (Gemma 2's
// attn_logit_softcapping; the recorded logits are the capped ones). With a cap,
// `scaledRowMaxAbs` (when given, [nQueries]) receives each row's largest |scaled logit| before
// the cap over the keys the bias allows (0 for a fully masked row).
std::vector<int> attentionInto(const Eigen::Ref<const Matrix>& q, const Eigen::Ref<const Matrix>& k,
                               const Eigen::Ref<const Matrix>& v, float scale, const Matrix& bias,
                               AttentionOutputs out, float softcap = 0.0f,
                               float* scaledRowMaxAbs = nullptr);

// −Σ p·ln p over one probability row, with 0·ln 0 = 0 (nats).
float rowEntropy(const Eigen::Ref<const RowVector>& p);

}  // namespace attnscope::ops
