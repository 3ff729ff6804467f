#include "weight_slots.h"

#include <cstddef>

namespace attnscope::model::detail {

namespace {

Vector asVector(Matrix m) {
    return Eigen::Map<Vector>(m.data(), m.size());
}

// A weight/bias role pair and the Linear or Norm of `Owner` the two fill. Tables of these
// replace one switch case per role: the fp32 and half-precision assignments and halfEligible
// read the same rows.
template <class Owner, class Slot>
struct PairSlot {
    Role weight;
    Role bias;
    Slot Owner::*slot;
};

const PairSlot<LayerWeights, Linear> kLayerLinears[] = {
    {Role::QueryWeight, Role::QueryBias, &LayerWeights::query},
    {Role::KeyWeight, Role::KeyBias, &LayerWeights::key},
    {Role::ValueWeight, Role::ValueBias, &LayerWeights::value},
    {Role::OutputWeight, Role::OutputBias, &LayerWeights::output},
    {Role::FfnGateWeight, Role::FfnGateBias, &LayerWeights::ffnGate},
    {Role::FfnUpWeight, Role::FfnUpBias, &LayerWeights::ffnUp},
    {Role::FfnDownWeight, Role::FfnDownBias, &LayerWeights::ffnDown},
    {Role::CrossQueryWeight, Role::CrossQueryBias, &LayerWeights::crossQuery},
    {Role::CrossKeyWeight, Role::CrossKeyBias, &LayerWeights::crossKey},
    {Role::CrossValueWeight, Role::CrossValueBias, &LayerWeights::crossValue},
    {Role::CrossOutputWeight, Role::CrossOutputBias, &LayerWeights::crossOutput},
};

const PairSlot<LayerWeights, Norm> kLayerNorms[] = {
    {Role::AttnNormWeight, Role::AttnNormBias, &LayerWeights::attnNorm},
    {Role::FfnNormWeight, Role::FfnNormBias, &LayerWeights::ffnNorm},
    {Role::CrossNormWeight, Role::CrossNormBias, &LayerWeights::crossNorm},
    {Role::QueryNormWeight, Role::QueryNormBias, &LayerWeights::queryNorm},
    {Role::KeyNormWeight, Role::KeyNormBias, &LayerWeights::keyNorm},
    {Role::PostAttnNormWeight, Role::PostAttnNormBias, &LayerWeights::postAttnNorm},
    {Role::PostFfnNormWeight, Role::PostFfnNormBias, &LayerWeights::postFfnNorm},
};

const PairSlot<Weights, Norm> kModelNorms[] = {
    {Role::EmbeddingNormWeight, Role::EmbeddingNormBias, &Weights::embeddingNorm},
    {Role::FinalNormWeight, Role::FinalNormBias, &Weights::finalNorm},
};

const PairSlot<PredictionHead, Linear> kHeadLinears[] = {
    {Role::HeadTransformWeight, Role::HeadTransformBias, &PredictionHead::transform},
};

const PairSlot<PredictionHead, Norm> kHeadNorms[] = {
    {Role::HeadNormWeight, Role::HeadNormBias, &PredictionHead::transformNorm},
};

// The row of `table` that names `role`, or null.
template <class Owner, class Slot, std::size_t N>
const PairSlot<Owner, Slot>* findPair(const PairSlot<Owner, Slot> (&table)[N], Role role) {
    for (const PairSlot<Owner, Slot>& p : table) {
        if (role == p.weight || role == p.bias) {
            return &p;
        }
    }
    return nullptr;
}

void store(Linear& slot, bool bias, Matrix m) {
    if (bias) {
        slot.bias = asVector(std::move(m));
    } else {
        slot.weight = std::move(m);
    }
}

void store(Norm& slot, bool bias, Matrix m) {
    (bias ? slot.bias : slot.weight) = asVector(std::move(m));
}

// Stores `m` in the slot `table` has for `role`; false (m untouched) when it has none.
template <class Owner, class Slot, std::size_t N>
bool assignPair(const PairSlot<Owner, Slot> (&table)[N], Role role, Matrix& m, Owner& owner) {
    const PairSlot<Owner, Slot>* p = findPair(table, role);
    if (p == nullptr) {
        return false;
    }
    store(owner.*(p->slot), role == p->bias, std::move(m));
    return true;
}

// The rows of a fused projection one slot takes: `repeats` runs of `count` rows, the r-th
// starting at first + r * stride. One run for contiguous layouts; one a head for GPT-NeoX.
struct RowRuns {
    Eigen::Index first = 0;
    Eigen::Index count = 0;
    Eigen::Index repeats = 1;
    Eigen::Index stride = 0;

    Eigen::Index rows() const { return count * repeats; }
};

// `m`'s rows of `runs`, one after the other.
template <class M>
M gatherRows(const M& m, const RowRuns& runs) {
    if (runs.repeats == 1) {
        return m.middleRows(runs.first, runs.count);
    }
    M out(runs.rows(), m.cols());
    for (Eigen::Index r = 0; r < runs.repeats; ++r) {
        out.middleRows(r * runs.count, runs.count) =
            m.middleRows(runs.first + r * runs.stride, runs.count);
    }
    return out;
}

// Splits a fused [q | k | v] projection (rows in nn.Linear layout): `take(slot, runs)` stores
// the rows of `runs` into the query, key and value slots in turn. All query rows, then key, then
// value rows; GPT-NeoX (spec.qkvPerHead): q, k and v rows of head 0, then of head 1, ...
template <class Take>
void splitQkv(const ModelSpec& s, LayerWeights& l, Take take) {
    const Eigen::Index dk = s.headDimK;
    const Eigen::Index dv = s.headDimV;
    if (s.qkvPerHead) {
        const Eigen::Index stride = 2 * dk + dv;
        take(l.query, RowRuns{0, dk, s.nHeads, stride});
        take(l.key, RowRuns{dk, dk, s.nHeads, stride});
        take(l.value, RowRuns{2 * dk, dv, s.nHeads, stride});
        return;
    }
    const Eigen::Index q = s.nHeads * dk;
    const Eigen::Index k = s.nKvHeads * dk;
    take(l.query, RowRuns{0, q});
    take(l.key, RowRuns{q, k});
    take(l.value, RowRuns{q + k, s.nKvHeads * dv});
}

// Splits Phi-3's fused gate_up_proj: the gate's rows, then the up projection's.
template <class Take>
void splitGateUp(const ModelSpec& s, LayerWeights& l, Take take) {
    take(l.ffnGate, RowRuns{0, s.dFfn});
    take(l.ffnUp, RowRuns{s.dFfn, s.dFfn});
}

// Calls `split` (splitQkv or splitGateUp) when `role` is a fused weight or bias.
template <class Take>
bool splitFused(Role role, const ModelSpec& s, LayerWeights& l, Take take) {
    if (role == Role::QkvWeight || role == Role::QkvBias) {
        splitQkv(s, l, take);
        return true;
    }
    if (role == Role::FfnGateUpWeight || role == Role::FfnGateUpBias) {
        splitGateUp(s, l, take);
        return true;
    }
    return false;
}

bool isFusedBias(Role role) {
    return role == Role::QkvBias || role == Role::FfnGateUpBias;
}

// A query, key or value projection's roles: self- and cross-attention's have the same shapes,
// a [rows, dModel] weight and a [rows] bias.
struct Projection {
    Role weight, bias, crossWeight, crossBias;
    int rows;
};

}  // namespace

void assignLayerSlot(Role role, Matrix m, const ModelSpec& spec, LayerWeights& l) {
    if (isFusedBias(role)) {
        const Matrix column = Eigen::Map<const Matrix>(m.data(), m.size(), 1);
        splitFused(role, spec, l, [&column](Linear& slot, const RowRuns& runs) {
            slot.bias = asVector(gatherRows(column, runs));
        });
        return;
    }
    if (splitFused(role, spec, l, [&m](Linear& slot, const RowRuns& runs) {
            slot.weight = gatherRows(m, runs);
        })) {
        return;
    }
    if (!assignPair(kLayerLinears, role, m, l)) {
        assignPair(kLayerNorms, role, m, l);
    }
}

bool halfEligible(Role role) {
    const auto* linear = findPair(kLayerLinears, role);
    return (linear != nullptr && role == linear->weight) || role == Role::QkvWeight ||
           role == Role::FfnGateUpWeight || role == Role::TokenEmbedding ||
           role == Role::HeadDecoderWeight;
}

void addOneToNormWeights(Weights& w) {
    const auto addOne = [](Norm& n) { n.weight.array() += 1.0f; };
    for (LayerWeights& l : w.layers) {
        for (const auto& p : kLayerNorms) {
            addOne(l.*(p.slot));
        }
    }
    for (const auto& p : kModelNorms) {
        addOne(w.*(p.slot));
    }
}

void assignStoredModelSlot(Role role, Linear stored, Weights& w) {
    Linear* slot = role == Role::TokenEmbedding      ? &w.tokenEmbedding
                   : role == Role::HeadDecoderWeight ? &w.prediction.decoder
                                                     : nullptr;
    if (slot != nullptr) {
        slot->half = std::move(stored.half);
        slot->blocks = std::move(stored.blocks);
    }
}

void assignStoredSlot(Role role, Linear stored, const ModelSpec& s, LayerWeights& l) {
    const bool fused = splitFused(role, s, l, [&stored](Linear& slot, const RowRuns& runs) {
        slot.half = {};
        slot.blocks = {};
        if (stored.isHalf()) {
            slot.half = {gatherRows(stored.half.bits, runs), stored.half.bfloat16};
            return;
        }
        // GGUF files store fused projections contiguously (llama.cpp's converter reorders
        // GPT-NeoX's), so one run of whole block rows.
        const ops::BlockMatrix& b = stored.blocks;
        const auto begin = b.bytes.begin() + runs.first * b.rowBytes;
        slot.blocks = {{begin, begin + runs.count * b.rowBytes},
                       b.type,
                       runs.count,
                       b.cols,
                       b.rowBytes,
                       b.int8Activations};
    });
    if (fused) {
        return;
    }
    if (const auto* p = findPair(kLayerLinears, role); p != nullptr && role == p->weight) {
        Linear& slot = l.*(p->slot);
        slot.half = std::move(stored.half);
        slot.blocks = std::move(stored.blocks);
    }
}

void assignModelSlot(Role role, Matrix m, Weights& w) {
    if (assignPair(kModelNorms, role, m, w) || assignPair(kHeadLinears, role, m, w.prediction) ||
        assignPair(kHeadNorms, role, m, w.prediction)) {
        return;
    }
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

std::string layerName(std::string pattern, int layer) {
    if (const auto pos = pattern.find("{}"); pos != std::string::npos) {
        pattern.replace(pos, 2, std::to_string(layer));
    }
    return pattern;
}

std::string shapeText(const std::vector<std::int64_t>& shape) {
    std::string out = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        out += (i ? ", " : "") + std::to_string(shape[i]);
    }
    return out + "]";
}

namespace {

// "a, b, c, ..." of the first `shown` names.
std::string namedList(const std::vector<std::string>& names, std::size_t shown) {
    std::string list;
    for (std::size_t i = 0; i < names.size() && i < shown; ++i) {
        list += (i ? ", " : "") + names[i];
    }
    return list + (names.size() > shown ? ", ..." : "");
}

}  // namespace

void addWeightWarnings(const std::vector<std::string>& nonFinite,
                       const std::vector<std::string>& unknown,
                       std::vector<std::string>& warnings) {
    if (!nonFinite.empty()) {
        warnings.push_back(std::to_string(nonFinite.size()) +
                           " weight tensor(s) hold NaN or Inf: " + namedList(nonFinite, 3) +
                           "; attention computed from them is not a number");
    }
    if (!unknown.empty()) {
        warnings.push_back("ignored " + std::to_string(unknown.size()) +
                           " unknown tensor(s): " + namedList(unknown, 5));
    }
}

bool keepHalfWeights(std::size_t floats, WeightPrecision precision) {
    if (precision != WeightPrecision::Auto) {
        return precision == WeightPrecision::AsStored;
    }
    return floats * sizeof(float) > kAutoHalfBytes;
}

std::pair<int, int> expectedShape(Role role, const ModelSpec& s) {
    using enum Role;
    const int q = s.nHeads * s.headDimK;
    const int k = s.nKvHeads * s.headDimK;
    const int v = s.nKvHeads * s.headDimV;
    const Projection projections[] = {
        {QueryWeight, QueryBias, CrossQueryWeight, CrossQueryBias, q},
        {KeyWeight, KeyBias, CrossKeyWeight, CrossKeyBias, k},
        {ValueWeight, ValueBias, CrossValueWeight, CrossValueBias, v}};
    for (const Projection& p : projections) {
        if (role == p.weight || role == p.crossWeight) {
            return {p.rows, s.dModel};
        }
        if (role == p.bias || role == p.crossBias) {
            return {p.rows, 0};
        }
    }
    switch (role) {
        case Role::TokenEmbedding:
        case Role::HeadDecoderWeight:
            return {s.vocabSize, s.dModel};
        case Role::PositionEmbedding:
            return {s.maxPositions, s.dModel};
        case Role::TokenTypeEmbedding:
            return {s.typeVocabSize, s.dModel};
        case Role::RelativeBias:
            return {s.relativeBuckets, s.nHeads};
        case Role::QkvWeight:
            return {q + k + v, s.dModel};
        case Role::QkvBias:
            return {q + k + v, 0};
        case Role::FfnGateUpWeight:
            return {2 * s.dFfn, s.dModel};
        case Role::FfnGateUpBias:
            return {2 * s.dFfn, 0};
        case Role::QueryNormWeight:
        case Role::QueryNormBias:
            return {s.qkNorm == QkNorm::Whole ? q : s.headDimK, 0};
        case Role::KeyNormWeight:
        case Role::KeyNormBias:
            return {s.qkNorm == QkNorm::Whole ? k : s.headDimK, 0};
        case Role::OutputWeight:
        case Role::CrossOutputWeight:
            return {s.dModel, s.nHeads * s.headDimV};
        case Role::HeadTransformWeight:
            return {s.dModel, s.dModel};
        case Role::HeadDecoderBias:
            return {s.vocabSize, 0};
        case Role::FinalLogitsBias:
            return {1, s.vocabSize};
        case Role::FfnUpWeight:
        case Role::FfnGateWeight:
            return {s.dFfn, s.dModel};
        case Role::FfnUpBias:
        case Role::FfnGateBias:
            return {s.dFfn, 0};
        case Role::FfnDownWeight:
            return {s.dModel, s.dFfn};
        default:
            return {s.dModel, 0};  // norms and the output/down biases
    }
}

}  // namespace attnscope::model::detail
