#include "attnscope/analysis/logit_attribution.h"

#include <cmath>

#include "attnscope/base/error.h"
#include "attnscope/forward/head_record.h"
#include "attnscope/forward/layer_block.h"
#include "attnscope/ops/half_matrix.h"

namespace attnscope::analysis {

namespace {

using model::NormPlacement;
using VectorD = Eigen::VectorXd;

// Row `id` of a weight matrix, fp32 or stored.
VectorD rowOf(const model::Linear& w, std::int32_t id) {
    const std::int32_t ids[] = {id};
    return ops::weightRows(w, ids).row(0).transpose().cast<double>();
}

// A whole weight matrix [out, in] as fp32, stored ones widened.
Matrix dense(const model::Linear& w) {
    if (!w.isStored()) {
        return w.weight;
    }
    Matrix out;
    ops::widenRows(w, 0, w.outputs(), out);
    return out;
}

// The linear map a norm applies to the terms of `total` with its scale frozen at `total`:
// a term t goes to scale·w ⊙ (t − mean(t)) (LayerNorm) or scale·w ⊙ t (RMSNorm); returned as
// the direction d such that that term dotted with g is t · d.
VectorD frozenNormDirection(const VectorD& total, const model::Norm& norm, model::NormKind kind,
                            float eps, const VectorD& g) {
    const auto n = static_cast<double>(total.size());
    double scale = 0;
    if (kind == model::NormKind::LayerNorm) {
        const double mean = total.mean();
        scale = 1.0 / std::sqrt((total.array() - mean).square().sum() / n + eps);
    } else {
        scale = 1.0 / std::sqrt(total.squaredNorm() / n + eps);
    }
    VectorD d = scale * norm.weight.cast<double>().cwiseProduct(g);
    if (kind == model::NormKind::LayerNorm) {
        d.array() -= d.mean();  // (t − mean(t)) · d == t · (d − mean(d))
    }
    return d;
}

bool normsSublayerOutputs(const model::ModelSpec& spec) {
    return spec.normPlacement == NormPlacement::Sandwich ||
           spec.normPlacement == NormPlacement::Output;
}

// Every head's context row at `position` in `layer` ([nHeads, headDimV]).
Matrix contextRows(const model::Model& m, const forward::ForwardResult& r, int layer,
                   int position) {
    Matrix z(m.spec.nHeads, m.spec.headDimV);
    for (int head = 0; head < m.spec.nHeads; ++head) {
        const HeadId h{layer, head};
        z.row(head) = r.mapsRecorded ? Matrix(r.contextOf(h)).row(position)
                                     : forward::recomputeHead(m, r, h).context.row(position);
    }
    return z;
}

struct Direction {
    VectorD g;  // what a term of the final residual is dotted with
    double biasTerm = 0;
};

// The final norm at `position` linearised, times the unembedding direction u.
Direction finalDirection(const model::Model& m, const forward::ForwardResult& r, int position,
                         const VectorD& u) {
    const model::ModelSpec& spec = m.spec;
    Direction d{u, 0.0};
    if (spec.finalNorm) {
        const VectorD x = r.finalResidual.row(position).transpose().cast<double>();
        d.g = frozenNormDirection(x, m.weights.finalNorm, spec.normKind, spec.normEps, u);
        if (m.weights.finalNorm.bias.size() > 0) {
            d.biasTerm = m.weights.finalNorm.bias.cast<double>().dot(u);
        }
    }
    return d;
}

}  // namespace

std::string DlaTerm::name() const {
    // Appended piece by piece: GCC 12 warns of a false overlap in "L" + std::to_string(...).
    std::string layerName = "L";
    layerName += std::to_string(layer);
    switch (kind) {
        case DlaTermKind::Embedding:
            return "embed";
        case DlaTermKind::Positions:
            return "pos";
        case DlaTermKind::Head:
            return layerName + "H" + std::to_string(head);
        case DlaTermKind::OutputBias:
            return layerName + "attn_bias";
        case DlaTermKind::Mlp:
            return layerName + "mlp";
        case DlaTermKind::FinalNormBias:
            return "final_norm_bias";
        case DlaTermKind::UnembedBias:
            break;
    }
    return "unembed_bias";
}

std::vector<double> LogitAttribution::headMap(int nLayers, int nHeads) const {
    std::vector<double> map(static_cast<std::size_t>(nLayers) * static_cast<std::size_t>(nHeads));
    for (const DlaTerm& t : terms) {
        if (t.kind == DlaTermKind::Head && t.layer < nLayers && t.head < nHeads) {
            map[static_cast<std::size_t>(t.layer * nHeads + t.head)] = t.value;
        }
    }
    return map;
}

std::string dlaUnsupportedReason(const model::Model& m) {
    const model::ModelSpec& spec = m.spec;
    if (m.isEncoderDecoder()) {
        return "direct logit attribution is for one-stack decoders, not encoder-decoder models";
    }
    if (spec.normPlacement == NormPlacement::Post || spec.embeddingNorm) {
        return "post-LN models (the BERT family) have no direct logit attribution: every layer "
               "ends in its own LayerNorm, so no head's output reaches the logit alone";
    }
    if (spec.prediction != model::PredictionKind::CausalLm) {
        return "the model has no causal LM head to attribute a logit of";
    }
    return {};
}

namespace {

void checkArguments(const model::Model& m, const forward::ForwardResult& r, int position,
                    std::int32_t target, std::optional<std::int32_t> distractor) {
    if (const std::string why = dlaUnsupportedReason(m); !why.empty()) {
        throw InvalidArgument(m.dir.string() + ": " + why);
    }
    if (r.layerStates.size() != static_cast<std::size_t>(m.spec.nLayers) ||
        r.finalResidual.rows() != r.nTokens) {
        throw InvalidArgument("direct logit attribution: the pass kept no layer states");
    }
    if (position < 0 || position >= r.nTokens) {
        throw InvalidArgument("direct logit attribution: position " + std::to_string(position) +
                              " is outside the " + std::to_string(r.nTokens) + " tokens");
    }
    for (const auto id : {std::optional(target), distractor}) {
        if (id && (*id < 0 || *id >= m.spec.vocabSize)) {
            throw InvalidArgument("direct logit attribution: token id " + std::to_string(*id) +
                                  " is outside the vocabulary [0, " +
                                  std::to_string(m.spec.vocabSize) + ")");
        }
    }
}

// The embedding and position terms of `position`.
void addEmbeddingTerms(const model::Model& m, const forward::ForwardResult& r, int position,
                       const VectorD& g, LogitAttribution& a) {
    const std::int32_t ids[] = {r.tokenIds[static_cast<std::size_t>(position)]};
    const VectorD token =
        ops::weightRows(m.weights.tokenEmbedding, ids).row(0).transpose().cast<double>() *
        static_cast<double>(m.spec.embeddingScale);
    a.terms.push_back({DlaTermKind::Embedding, -1, -1, token.dot(g)});
    if (m.spec.learnedPositions && m.weights.positionEmbedding.rows() > 0) {
        const int pos = position + m.spec.positionOffset;
        const VectorD row = m.weights.positionEmbedding.row(pos).transpose().cast<double>();
        a.terms.push_back({DlaTermKind::Positions, -1, -1, row.dot(g)});
    }
}

// The terms of `layer`: its heads, its output bias and its MLP.
void addLayerTerms(const model::Model& m, const forward::ForwardResult& r, int layer, int position,
                   const VectorD& g, LogitAttribution& a) {
    const model::ModelSpec& spec = m.spec;
    const model::LayerWeights& w = m.weights.layers[static_cast<std::size_t>(layer)];
    const Matrix wo = dense(w.output);  // [dModel, nHeads * headDimV]
    const Matrix z = contextRows(m, r, layer, position);
    const int dv = spec.headDimV;
    std::vector<VectorD> heads;
    VectorD total = VectorD::Zero(wo.rows());
    for (int head = 0; head < spec.nHeads; ++head) {
        heads.push_back((wo.middleCols(head * dv, dv) * z.row(head).transpose()).cast<double>());
        total += heads.back();
    }
    const bool bias = w.output.bias.size() > 0;
    if (bias) {
        total += w.output.bias.cast<double>();
    }
    // Through the sublayer's own output norm (frozen at the whole output) where there is one.
    const VectorD d =
        normsSublayerOutputs(spec)
            ? frozenNormDirection(total, w.postAttnNorm, spec.normKind, spec.normEps, g)
            : g;
    for (int head = 0; head < spec.nHeads; ++head) {
        a.terms.push_back(
            {DlaTermKind::Head, layer, head, heads[static_cast<std::size_t>(head)].dot(d)});
    }
    if (bias) {
        a.terms.push_back(
            {DlaTermKind::OutputBias, layer, -1, w.output.bias.cast<double>().dot(d)});
    }
    // The MLP's term is what the layer added after its attention sub-block.
    const Matrix x = r.layerStates[static_cast<std::size_t>(layer)].row(position);
    const Matrix y = forward::attentionResidual(m, layer, x, total.cast<float>().transpose());
    const Matrix next =
        layer + 1 < spec.nLayers
            ? Matrix(r.layerStates[static_cast<std::size_t>(layer) + 1].row(position))
            : Matrix(r.finalResidual.row(position));
    a.terms.push_back(
        {DlaTermKind::Mlp, layer, -1, (next - y).row(0).transpose().cast<double>().dot(g)});
}

}  // namespace

LogitAttribution directLogitAttribution(const model::Model& m, const forward::ForwardResult& r,
                                        int position, std::int32_t target,
                                        std::optional<std::int32_t> distractor) {
    checkArguments(m, r, position, target, distractor);
    const model::Linear& unembed = m.weights.decoder();
    VectorD u = rowOf(unembed, target);
    if (distractor) {
        u -= rowOf(unembed, *distractor);
    }
    LogitAttribution a;
    a.position = position;
    a.target = target;
    a.distractor = distractor;
    const Direction d = finalDirection(m, r, position, u);
    addEmbeddingTerms(m, r, position, d.g, a);
    for (int layer = 0; layer < m.spec.nLayers; ++layer) {
        addLayerTerms(m, r, layer, position, d.g, a);
    }
    if (m.weights.finalNorm.bias.size() > 0 && m.spec.finalNorm) {
        a.terms.push_back({DlaTermKind::FinalNormBias, -1, -1, d.biasTerm});
    }
    double unembedBias = 0;
    const Vector& headBias = m.weights.prediction.bias;
    if (headBias.size() > 0) {
        unembedBias = headBias[target] - (distractor ? headBias[*distractor] : 0.0f);
        a.terms.push_back({DlaTermKind::UnembedBias, -1, -1, unembedBias});
    }
    a.logit = r.hidden.row(position).transpose().cast<double>().dot(u) + unembedBias;
    double sum = 0;
    for (const DlaTerm& t : a.terms) {
        sum += t.value;
    }
    a.residual = a.logit - sum;
    return a;
}

void checkSum(const LogitAttribution& a, double relTolerance) {
    if (std::abs(a.residual) > relTolerance * std::max(1.0, std::abs(a.logit))) {
        throw Error("direct logit attribution at position " + std::to_string(a.position) +
                    ": the terms add up to " + std::to_string(a.logit - a.residual) +
                    ", not the logit " + std::to_string(a.logit));
    }
}

}  // namespace attnscope::analysis
