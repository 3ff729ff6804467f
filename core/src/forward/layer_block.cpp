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

}  // namespace

Matrix attentionInput(const model::Model& m, int layer, const Matrix& x) {
    return preNorm(m) ? norm(m, x, weightsOf(m, layer).attnNorm) : x;
}

Matrix attentionResidual(const model::Model& m, int layer, const Matrix& x,
                         const Matrix& attention) {
    if (preNorm(m)) {
        return x + attention;
    }
    return norm(m, x + attention, weightsOf(m, layer).attnNorm);
}

Matrix crossAttentionInput(const model::Model& m, int layer, const Matrix& y) {
    return preNorm(m) ? norm(m, y, weightsOf(m, layer).crossNorm) : y;
}

Matrix crossAttentionResidual(const model::Model& m, int layer, const Matrix& y,
                              const Matrix& cross) {
    if (preNorm(m)) {
        return y + cross;
    }
    return norm(m, y + cross, weightsOf(m, layer).crossNorm);
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
