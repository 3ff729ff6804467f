#include "attnscope/forward/layer_block.h"

#include <utility>

#include "attnscope/ops/layer_ops.h"

namespace attnscope::forward {

namespace {

const model::LayerWeights& weightsOf(const model::Model& m, int layer) {
    return m.weights.layers[static_cast<std::size_t>(layer)];
}

Matrix norm(const model::Model& m, const Matrix& t, const model::Norm& n) {
    return ops::normalize(t, n, m.spec.normKind, m.spec.normEps);
}

// Whether a norm comes before each sublayer (Pre, Sandwich) and whether another sits on its
// output before the residual add (Sandwich, Output).
bool preNorm(const model::Model& m) {
    const auto p = m.spec.normPlacement;
    return p == model::NormPlacement::Pre || p == model::NormPlacement::Sandwich;
}

bool outputNorm(const model::Model& m) {
    const auto p = m.spec.normPlacement;
    return p == model::NormPlacement::Sandwich || p == model::NormPlacement::Output;
}

bool postNorm(const model::Model& m) {
    return m.spec.normPlacement == model::NormPlacement::Post;
}

Matrix feedForward(const model::LayerWeights& w, const Matrix& x, const model::ModelSpec& spec) {
    if (spec.ffnKind == model::FfnKind::Gated) {
        Matrix gate = ops::linear(x, w.ffnGate);
        ops::activate(gate, spec.activation);
        return ops::linear(gate.cwiseProduct(ops::linear(x, w.ffnUp)), w.ffnDown);
    }
    Matrix f = ops::linear(x, w.ffnUp);
    ops::activate(f, spec.activation);
    return ops::linear(f, w.ffnDown);
}

// An attention sub-block's input and its residual around the sub-block's output `out`, with the
// norm `n` that goes with it: before the sub-block in a pre-norm model, after the residual sum in
// a post-norm one.
Matrix subBlockInput(const model::Model& m, const Matrix& x, const model::Norm& n) {
    return preNorm(m) ? norm(m, x, n) : x;
}

// `n` is the sublayer's own norm (Post: after the sum), `after` the one on its output.
Matrix subBlockResidual(const model::Model& m, const Matrix& x, const Matrix& out,
                        const model::Norm& n, const model::Norm& after) {
    if (postNorm(m)) {
        return norm(m, x + out, n);
    }
    if (outputNorm(m)) {
        return x + norm(m, out, after);
    }
    return x + out;
}

}  // namespace

Matrix attentionInput(const model::Model& m, int layer, const Matrix& x) {
    return subBlockInput(m, x, weightsOf(m, layer).attnNorm);
}

Matrix attentionResidual(const model::Model& m, int layer, const Matrix& x,
                         const Matrix& attention) {
    const model::LayerWeights& w = weightsOf(m, layer);
    return subBlockResidual(m, x, attention, w.attnNorm, w.postAttnNorm);
}

Matrix crossAttentionInput(const model::Model& m, int layer, const Matrix& y) {
    return subBlockInput(m, y, weightsOf(m, layer).crossNorm);
}

Matrix crossAttentionResidual(const model::Model& m, int layer, const Matrix& y,
                              const Matrix& cross) {
    const model::Norm& n = weightsOf(m, layer).crossNorm;
    return subBlockResidual(m, y, cross, n, n);
}

Matrix finishLayer(const model::Model& m, int layer, const Matrix& x, Matrix y) {
    return finishLayer(m, layer, x, std::move(y), {});
}

Matrix finishLayer(const model::Model& m, int layer, const Matrix& x, Matrix y,
                   const std::function<void(Matrix&)>& onFfn) {
    const model::LayerWeights& w = weightsOf(m, layer);
    // GPT-NeoX's parallel residual: the feed-forward reads the layer's input, not y.
    const Matrix& ffnReads = m.spec.parallelResidual ? x : y;
    const bool post = postNorm(m);
    Matrix f =
        feedForward(w, post || !preNorm(m) ? ffnReads : norm(m, ffnReads, w.ffnNorm), m.spec);
    if (onFfn) {
        onFfn(f);
    }
    if (post) {
        return norm(m, y + f, w.ffnNorm);
    }
    if (outputNorm(m)) {
        f = norm(m, f, w.postFfnNorm);
    }
    y += f;
    return y;
}

}  // namespace attnscope::forward
