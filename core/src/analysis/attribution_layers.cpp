// A4's pieces of one layer: the per-head transformed values f^h(x_j) = v[h, j] W_O^h, and the
// pass's own attention output around them (attribution_layers.h).
#include "attribution_layers.h"

#include "attnscope/forward/head_record.h"
#include "attnscope/forward/layer_block.h"
#include "attnscope/ops/half_matrix.h"
#include "attnscope/ops/layer_ops.h"

namespace attnscope::analysis::detail {

namespace {

// The output projection as fp32 [D, H * dv], whichever precision it was kept in.
Matrix outputWeight(const ops::Linear& output) {
    if (!output.isHalf()) {
        return output.weight;
    }
    Matrix wide;
    ops::widenRows(output.half, 0, output.half.bits.rows(), wide);
    return wide;
}

}  // namespace

LayerTerms layerTerms(const model::Model& model, const forward::ForwardResult& pass, int layer,
                      const CancelToken& cancel, bool withOutput) {
    const model::ModelSpec& spec = model.spec;
    const model::LayerWeights& w = model.weights.layers[static_cast<std::size_t>(layer)];
    const Eigen::Index n = pass.nTokens;
    const int dv = spec.headDimV;
    LayerTerms t;
    t.x = pass.layerStates[static_cast<std::size_t>(layer)];
    // The values the pass used (A4): RoPE never touches them, so only the value projection of
    // what attention read is needed, b_V included.
    const Matrix values = ops::linear(forward::attentionInput(model, layer, t.x), w.value);
    const Matrix wo = outputWeight(w.output);
    Matrix concat(n, static_cast<Eigen::Index>(spec.nHeads) * dv);
    for (int h = 0; h < spec.nHeads; ++h) {
        forward::HeadRecord record = forward::headRecord(model, pass, {layer, h}, cancel);
        t.probs.push_back(std::move(record.probs));
        concat.middleCols(static_cast<Eigen::Index>(h) * dv, dv) = record.context;
        const Eigen::Index kv = static_cast<Eigen::Index>(pass.kvHeadOf(h)) * dv;
        t.f.push_back(values.middleCols(kv, dv) *
                      wo.middleCols(static_cast<Eigen::Index>(h) * dv, dv).transpose());
    }
    if (!withOutput) {
        return t;
    }
    // The same product of the same contexts as the pass: its very bits.
    t.attention = ops::linear(concat, w.output);
    t.y = forward::attentionResidual(model, layer, t.x, t.attention);
    return t;
}

Matrix keyTerms(const LayerTerms& t, int j) {
    const auto heads = static_cast<Eigen::Index>(t.f.size());
    const Eigen::Index n = t.x.rows();
    Matrix weights(n, heads);               // A[h, i, j] for every query i
    Matrix transformed(heads, t.x.cols());  // f^h(x_j) for every head
    for (Eigen::Index h = 0; h < heads; ++h) {
        const auto uh = static_cast<std::size_t>(h);
        weights.col(h) = t.probs[uh].col(j);
        transformed.row(h) = t.f[uh].row(j);
    }
    return weights * transformed;
}

}  // namespace attnscope::analysis::detail
