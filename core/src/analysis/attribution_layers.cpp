// A4's pieces of one layer: the per-head transformed values f^h(x_j) = v[h, j] W_O^h, and the
// pass's own attention output around them (attribution_layers.h).
#include "attribution_layers.h"

#include "attnscope/forward/head_record.h"
#include "attnscope/forward/layer_block.h"
#include "attnscope/ops/half_matrix.h"
#include "attnscope/ops/layer_ops.h"

namespace attnscope::analysis::detail {

namespace {

// The output projection as fp32 [D, H * dv]: the model's own matrix, or `wide` when it was kept
// as stored (half precision or ggml blocks).
const Matrix& outputWeight(const ops::Linear& output, Matrix& wide) {
    if (!output.isStored()) {
        return output.weight;
    }
    ops::widenRows(output, 0, output.outputs(), wide);
    return wide;
}

// Points t.probs and t.context at the pass's record of the layer's heads, recomputing those the
// map budget dropped (head_record.h: the same bits).
void readHeads(const model::Model& model, const forward::ForwardResult& pass, int layer,
               const CancelToken& cancel, LayerTerms& t) {
    const Eigen::Index n = pass.nTokens;
    if (!pass.mapsRecorded) {
        t.recomputed.reserve(static_cast<std::size_t>(pass.nHeads));
    }
    for (int h = 0; h < pass.nHeads; ++h) {
        if (pass.mapsRecorded) {
            t.probs.push_back(pass.attention({layer, h}));
            t.context.push_back(pass.contextOf({layer, h}));
            continue;
        }
        t.recomputed.push_back(forward::recomputeHead(model, pass, {layer, h}, cancel));
        const forward::HeadRecord& r = t.recomputed.back();
        t.probs.emplace_back(r.probs.data(), n, n);
        t.context.emplace_back(r.context.data(), n, r.context.cols());
    }
}

}  // namespace

LayerTerms layerTerms(const model::Model& model, const forward::ForwardResult& pass, int layer,
                      const CancelToken& cancel, bool withOutput, std::vector<Matrix> reuse) {
    const model::ModelSpec& spec = model.spec;
    const model::LayerWeights& w = model.weights.layers[static_cast<std::size_t>(layer)];
    const Eigen::Index n = pass.nTokens;
    const int dv = spec.headDimV;
    LayerTerms t(pass.layerStates[static_cast<std::size_t>(layer)]);
    readHeads(model, pass, layer, cancel, t);
    // The values the pass used (A4), b_V included: kept by the pass, else projected again from
    // what attention read (RoPE never touches them).
    Matrix projected;
    if (pass.layerValues.size() != static_cast<std::size_t>(pass.nLayers)) {
        projected = ops::linear(forward::attentionInput(model, layer, Matrix(t.x)), w.value);
    }
    const Matrix& values =
        projected.size() > 0 ? projected : pass.layerValues[static_cast<std::size_t>(layer)];
    Matrix wide;
    const Matrix& wo = outputWeight(w.output, wide);
    t.f = std::move(reuse);
    t.f.resize(static_cast<std::size_t>(spec.nHeads));
    for (int h = 0; h < spec.nHeads; ++h) {
        const Eigen::Index kv = static_cast<Eigen::Index>(pass.kvHeadOf(h)) * dv;
        t.f[static_cast<std::size_t>(h)].noalias() =
            values.middleCols(kv, dv) *
            wo.middleCols(static_cast<Eigen::Index>(h) * dv, dv).transpose();
    }
    if (!withOutput) {
        return t;
    }
    // The same product of the same contexts as the pass: its very bits.
    Matrix concat(n, static_cast<Eigen::Index>(spec.nHeads) * dv);
    for (int h = 0; h < spec.nHeads; ++h) {
        concat.middleCols(static_cast<Eigen::Index>(h) * dv, dv) =
            t.context[static_cast<std::size_t>(h)];
    }
    t.attention = ops::linear(concat, w.output);
    t.y = forward::attentionResidual(model, layer, Matrix(t.x), t.attention);
    return t;
}

void keyTermsInto(const LayerTerms& t, int j, KeyTermsBuffers& buffers, Matrix& out) {
    const auto heads = static_cast<Eigen::Index>(t.f.size());
    buffers.weights.resize(t.x.rows(), heads);
    buffers.transformed.resize(heads, t.x.cols());
    for (Eigen::Index h = 0; h < heads; ++h) {
        const auto uh = static_cast<std::size_t>(h);
        buffers.weights.col(h) = t.probs[uh].col(j);
        buffers.transformed.row(h) = t.f[uh].row(j);
    }
    out.noalias() = buffers.weights * buffers.transformed;
}

}  // namespace attnscope::analysis::detail
