#include "attnscope/forward/layer_block.h"

#include "attnscope/ops/layer_ops.h"

namespace attnscope::forward {

namespace {

const model::LayerWeights& weightsOf(const model::Model& m, int layer) {
    return m.weights.layers[static_cast<std::size_t>(layer)];
}

Matrix norm(const model::Model& m, const Matrix& t, const model::Norm& n) {
    return ops::normalize(t, n, m.spec.normKind, m.spec.normEps);
}

bool preNorm(const model::Model& m) {
    return m.spec.normPlacement == model::NormPlacement::Pre;
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

Matrix subBlockResidual(const model::Model& m, const Matrix& x, const Matrix& out,
                        const model::Norm& n) {
    if (preNorm(m)) {
        return x + out;
    }
    return norm(m, x + out, n);
}

}  // namespace

Matrix attentionInput(const model::Model& m, int layer, const Matrix& x) {
    return subBlockInput(m, x, weightsOf(m, layer).attnNorm);
}

Matrix attentionResidual(const model::Model& m, int layer, const Matrix& x,
                         const Matrix& attention) {
    return subBlockResidual(m, x, attention, weightsOf(m, layer).attnNorm);
}

Matrix crossAttentionInput(const model::Model& m, int layer, const Matrix& y) {
    return subBlockInput(m, y, weightsOf(m, layer).crossNorm);
}

Matrix crossAttentionResidual(const model::Model& m, int layer, const Matrix& y,
                              const Matrix& cross) {
    return subBlockResidual(m, y, cross, weightsOf(m, layer).crossNorm);
}

Matrix finishLayer(const model::Model& m, int layer, Matrix y) {
    const model::LayerWeights& w = weightsOf(m, layer);
    if (preNorm(m)) {
        y += feedForward(w, norm(m, y, w.ffnNorm), m.spec);
        return y;
    }
    return norm(m, y + feedForward(w, y, m.spec), w.ffnNorm);
}

}  // namespace attnscope::forward
