#include "weight_slots.h"

namespace attnscope::model::detail {

namespace {

Vector asVector(Matrix m) {
    return Eigen::Map<Vector>(m.data(), m.size());
}

// The projection a per-layer weight or bias role fills; null for every other role. One table
// serves the fp32 and the half-precision assignment.
struct LinearSlot {
    Linear* linear = nullptr;
    bool bias = false;
};

LinearSlot linearSlot(Role role, LayerWeights& l) {
    switch (role) {
        case Role::QueryWeight:
            return {&l.query, false};
        case Role::QueryBias:
            return {&l.query, true};
        case Role::KeyWeight:
            return {&l.key, false};
        case Role::KeyBias:
            return {&l.key, true};
        case Role::ValueWeight:
            return {&l.value, false};
        case Role::ValueBias:
            return {&l.value, true};
        case Role::OutputWeight:
            return {&l.output, false};
        case Role::OutputBias:
            return {&l.output, true};
        case Role::FfnGateWeight:
            return {&l.ffnGate, false};
        case Role::FfnGateBias:
            return {&l.ffnGate, true};
        case Role::FfnUpWeight:
            return {&l.ffnUp, false};
        case Role::FfnUpBias:
            return {&l.ffnUp, true};
        case Role::FfnDownWeight:
            return {&l.ffnDown, false};
        case Role::FfnDownBias:
            return {&l.ffnDown, true};
        case Role::CrossQueryWeight:
            return {&l.crossQuery, false};
        case Role::CrossQueryBias:
            return {&l.crossQuery, true};
        case Role::CrossKeyWeight:
            return {&l.crossKey, false};
        case Role::CrossKeyBias:
            return {&l.crossKey, true};
        case Role::CrossValueWeight:
            return {&l.crossValue, false};
        case Role::CrossValueBias:
            return {&l.crossValue, true};
        case Role::CrossOutputWeight:
            return {&l.crossOutput, false};
        case Role::CrossOutputBias:
            return {&l.crossOutput, true};
        default:
            return {};
    }
}

// Splits a fused [q | k | v] projection (rows in nn.Linear layout): `take(slot, first, count)`
// stores rows [first, first + count) into the query, key and value slots in turn.
template <class Take>
void splitQkv(const ModelSpec& s, LayerWeights& l, Take take) {
    const Eigen::Index q = s.nHeads * s.headDimK;
    const Eigen::Index k = s.nKvHeads * s.headDimK;
    take(l.query, 0, q);
    take(l.key, q, k);
    take(l.value, q + k, s.nKvHeads * s.headDimV);
}

}  // namespace

void assignLayerSlot(Role role, Matrix m, const ModelSpec& spec, LayerWeights& l) {
    if (role == Role::QkvWeight) {
        splitQkv(spec, l, [&m](Linear& slot, Eigen::Index first, Eigen::Index count) {
            slot.weight = m.middleRows(first, count);
        });
        return;
    }
    if (role == Role::QkvBias) {
        const Vector b = asVector(std::move(m));
        splitQkv(spec, l, [&b](Linear& slot, Eigen::Index first, Eigen::Index count) {
            slot.bias = b.segment(first, count);
        });
        return;
    }
    if (const LinearSlot slot = linearSlot(role, l); slot.linear != nullptr) {
        if (slot.bias) {
            slot.linear->bias = asVector(std::move(m));
        } else {
            slot.linear->weight = std::move(m);
        }
        return;
    }
    switch (role) {
        case Role::AttnNormWeight:
            l.attnNorm.weight = asVector(std::move(m));
            break;
        case Role::AttnNormBias:
            l.attnNorm.bias = asVector(std::move(m));
            break;
        case Role::FfnNormWeight:
            l.ffnNorm.weight = asVector(std::move(m));
            break;
        case Role::FfnNormBias:
            l.ffnNorm.bias = asVector(std::move(m));
            break;
        case Role::CrossNormWeight:
            l.crossNorm.weight = asVector(std::move(m));
            break;
        case Role::CrossNormBias:
            l.crossNorm.bias = asVector(std::move(m));
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
        case Role::CrossQueryWeight:
        case Role::CrossKeyWeight:
        case Role::CrossValueWeight:
        case Role::CrossOutputWeight:
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
    if (role == Role::QkvWeight) {
        splitQkv(s, l, [&h](Linear& slot, Eigen::Index first, Eigen::Index count) {
            slot.half = {h.bits.middleRows(first, count), h.bfloat16};
        });
        return;
    }
    if (const LinearSlot slot = linearSlot(role, l); slot.linear != nullptr && !slot.bias) {
        slot.linear->half = std::move(h);
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
        case Role::FinalLogitsBias:
            w.prediction.bias = asVector(std::move(m));
            break;
        case Role::RelativeBias:
            w.relativeBias = std::move(m);
            break;
        default:
            break;
    }
}

}  // namespace attnscope::model::detail
