#include "weight_slots.h"

namespace attnscope::model::detail {

namespace {

Vector asVector(Matrix m) {
    return Eigen::Map<Vector>(m.data(), m.size());
}

// Splits a fused [q | k | v] projection (rows in nn.Linear layout) into three slots.
void splitQkv(const Matrix& w, const Vector& b, const ModelSpec& s, LayerWeights& layer,
              bool isBias) {
    const int q = s.nHeads * s.headDimK;
    const int k = s.nKvHeads * s.headDimK;
    const int v = s.nKvHeads * s.headDimV;
    if (isBias) {
        layer.query.bias = b.segment(0, q);
        layer.key.bias = b.segment(q, k);
        layer.value.bias = b.segment(q + k, v);
    } else {
        layer.query.weight = w.middleRows(0, q);
        layer.key.weight = w.middleRows(q, k);
        layer.value.weight = w.middleRows(q + k, v);
    }
}

HalfMatrix halfRows(const HalfMatrix& h, Eigen::Index first, Eigen::Index count) {
    return {h.bits.middleRows(first, count), h.bfloat16};
}

}  // namespace

void assignLayerSlot(Role role, Matrix m, const ModelSpec& spec, LayerWeights& l) {
    switch (role) {
        case Role::QueryWeight:
            l.query.weight = std::move(m);
            break;
        case Role::QueryBias:
            l.query.bias = asVector(std::move(m));
            break;
        case Role::KeyWeight:
            l.key.weight = std::move(m);
            break;
        case Role::KeyBias:
            l.key.bias = asVector(std::move(m));
            break;
        case Role::ValueWeight:
            l.value.weight = std::move(m);
            break;
        case Role::ValueBias:
            l.value.bias = asVector(std::move(m));
            break;
        case Role::QkvWeight:
            splitQkv(m, {}, spec, l, false);
            break;
        case Role::QkvBias:
            splitQkv({}, asVector(std::move(m)), spec, l, true);
            break;
        case Role::OutputWeight:
            l.output.weight = std::move(m);
            break;
        case Role::OutputBias:
            l.output.bias = asVector(std::move(m));
            break;
        case Role::AttnNormWeight:
            l.attnNorm.weight = asVector(std::move(m));
            break;
        case Role::AttnNormBias:
            l.attnNorm.bias = asVector(std::move(m));
            break;
        case Role::FfnGateWeight:
            l.ffnGate.weight = std::move(m);
            break;
        case Role::FfnGateBias:
            l.ffnGate.bias = asVector(std::move(m));
            break;
        case Role::FfnUpWeight:
            l.ffnUp.weight = std::move(m);
            break;
        case Role::FfnUpBias:
            l.ffnUp.bias = asVector(std::move(m));
            break;
        case Role::FfnDownWeight:
            l.ffnDown.weight = std::move(m);
            break;
        case Role::FfnDownBias:
            l.ffnDown.bias = asVector(std::move(m));
            break;
        case Role::FfnNormWeight:
            l.ffnNorm.weight = asVector(std::move(m));
            break;
        case Role::FfnNormBias:
            l.ffnNorm.bias = asVector(std::move(m));
            break;
        default:
            break;
    }
}

bool halfEligible(Role role) {
    switch (role) {
        case Role::QueryWeight:
        case Role::KeyWeight:
        case Role::ValueWeight:
        case Role::QkvWeight:
        case Role::OutputWeight:
        case Role::FfnGateWeight:
        case Role::FfnUpWeight:
        case Role::FfnDownWeight:
        case Role::TokenEmbedding:
        case Role::HeadDecoderWeight:
            return true;
        default:
            return false;
    }
}

void assignHalfModelSlot(Role role, HalfMatrix h, Weights& w) {
    if (role == Role::TokenEmbedding) {
        w.tokenEmbedding.half = std::move(h);
    } else if (role == Role::HeadDecoderWeight) {
        w.prediction.decoder.half = std::move(h);
    }
}

void assignHalfSlot(Role role, HalfMatrix h, const ModelSpec& s, LayerWeights& l) {
    switch (role) {
        case Role::QueryWeight:
            l.query.half = std::move(h);
            break;
        case Role::KeyWeight:
            l.key.half = std::move(h);
            break;
        case Role::ValueWeight:
            l.value.half = std::move(h);
            break;
        case Role::QkvWeight: {
            const int q = s.nHeads * s.headDimK;
            const int k = s.nKvHeads * s.headDimK;
            l.query.half = halfRows(h, 0, q);
            l.key.half = halfRows(h, q, k);
            l.value.half = halfRows(h, q + k, s.nKvHeads * s.headDimV);
            break;
        }
        case Role::OutputWeight:
            l.output.half = std::move(h);
            break;
        case Role::FfnGateWeight:
            l.ffnGate.half = std::move(h);
            break;
        case Role::FfnUpWeight:
            l.ffnUp.half = std::move(h);
            break;
        case Role::FfnDownWeight:
            l.ffnDown.half = std::move(h);
            break;
        default:
            break;
    }
}

void assignModelSlot(Role role, Matrix m, Weights& w) {
    switch (role) {
        case Role::TokenEmbedding:
            w.tokenEmbedding.weight = std::move(m);
            break;
        case Role::PositionEmbedding:
            w.positionEmbedding = std::move(m);
            break;
        case Role::TokenTypeEmbedding:
            w.tokenTypeEmbedding = std::move(m);
            break;
        case Role::EmbeddingNormWeight:
            w.embeddingNorm.weight = asVector(std::move(m));
            break;
        case Role::EmbeddingNormBias:
            w.embeddingNorm.bias = asVector(std::move(m));
            break;
        case Role::FinalNormWeight:
            w.finalNorm.weight = asVector(std::move(m));
            break;
        case Role::FinalNormBias:
            w.finalNorm.bias = asVector(std::move(m));
            break;
        case Role::HeadTransformWeight:
            w.prediction.transform.weight = std::move(m);
            break;
        case Role::HeadTransformBias:
            w.prediction.transform.bias = asVector(std::move(m));
            break;
        case Role::HeadNormWeight:
            w.prediction.transformNorm.weight = asVector(std::move(m));
            break;
        case Role::HeadNormBias:
            w.prediction.transformNorm.bias = asVector(std::move(m));
            break;
        case Role::HeadDecoderWeight:
            w.prediction.decoder.weight = std::move(m);
            break;
        case Role::HeadDecoderBias:
            w.prediction.bias = asVector(std::move(m));
            break;
        default:
            break;
    }
}

}  // namespace attnscope::model::detail
