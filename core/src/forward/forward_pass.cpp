// The shared forward pass. Architecture differences arrive only as ModelSpec flags
// (norm placement, activation, position scheme, default mask); the math is written once.
#include "attnscope/forward/forward_pass.h"

#include <string>

#include "attnscope/base/error.h"
#include "attnscope/ops/attention.h"
#include "attnscope/ops/layer_ops.h"
#include "attnscope/ops/rope.h"

namespace attnscope::forward {

using model::ModelSpec;

namespace {

void checkInput(const ModelSpec& spec, const ForwardInput& input) {
    const auto n = input.tokenIds.size();
    if (n == 0) {
        throw InvalidArgument("forward pass: no tokens");
    }
    if (n > static_cast<std::size_t>(spec.maxTokens())) {
        throw InvalidArgument("forward pass: " + std::to_string(n) + " tokens exceed the " +
                              std::to_string(spec.maxTokens()) +
                              " positions this model has (max_position_embeddings)");
    }
    for (std::size_t i = 0; i < n; ++i) {
        const std::int32_t id = input.tokenIds[i];
        if (id < 0 || id >= spec.vocabSize) {
            throw InvalidArgument("forward pass: token " + std::to_string(i) + ": id " +
                                  std::to_string(id) + " is outside the vocabulary [0, " +
                                  std::to_string(spec.vocabSize) + ")");
        }
    }
    if (!input.tokenTypeIds.empty() && input.tokenTypeIds.size() != n) {
        throw InvalidArgument("forward pass: " + std::to_string(input.tokenTypeIds.size()) +
                              " token type ids for " + std::to_string(n) + " tokens");
    }
    for (std::int32_t t : input.tokenTypeIds) {
        if (t < 0 || t >= std::max(spec.typeVocabSize, 1)) {
            throw InvalidArgument("forward pass: token type id " + std::to_string(t) +
                                  " is outside [0, " + std::to_string(spec.typeVocabSize) + ")");
        }
    }
}

std::vector<int> positionIds(const ModelSpec& spec, const std::vector<std::int32_t>& ids) {
    std::vector<int> pos(ids.size());
    int next = spec.positionOffset;
    if (spec.positions == model::PositionScheme::SkipPadTokens) {
        next = spec.padTokenId.value_or(0) + 1;
    }
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const bool isPad = spec.positions == model::PositionScheme::SkipPadTokens &&
                           ids[i] == spec.padTokenId.value_or(-1);
        pos[i] = isPad ? *spec.padTokenId : next++;
    }
    return pos;
}

Matrix embed(const model::Model& m, const ForwardInput& input, const std::vector<int>& pos) {
    const ModelSpec& spec = m.spec;
    const auto n = static_cast<Eigen::Index>(input.tokenIds.size());
    Matrix x(n, spec.dModel);
    for (Eigen::Index i = 0; i < n; ++i) {
        const auto ui = static_cast<std::size_t>(i);
        x.row(i) = m.weights.tokenEmbedding.row(input.tokenIds[ui]);
        if (spec.learnedPositions) {
            x.row(i) += m.weights.positionEmbedding.row(pos[ui]);
        }
        if (spec.typeVocabSize > 0) {
            const int type = input.tokenTypeIds.empty() ? 0 : input.tokenTypeIds[ui];
            x.row(i) += m.weights.tokenTypeEmbedding.row(type);
        }
    }
    if (spec.embeddingNorm) {
        x = ops::layerNorm(x, m.weights.embeddingNorm, spec.normEps);
    }
    return x;
}

// What every layer's attention shares in one forward pass.
struct AttentionContext {
    Matrix bias;          // [n, n] mask as an additive bias
    ops::RopeTable rope;  // empty without RoPE
};

// Multi-head attention of one layer; records every head into `r`. Returns [n, dModel].
// With grouped-query attention several query heads read the same key/value head.
Matrix attendLayer(const model::Model& m, int layer, const Matrix& h, const AttentionContext& ctx,
                   float scale, ForwardResult& r) {
    const ModelSpec& spec = m.spec;
    const model::LayerWeights& w = m.weights.layers[static_cast<std::size_t>(layer)];
    Matrix q = ops::linear(h, w.query);        // [n, nHeads * headDimK]
    Matrix k = ops::linear(h, w.key);          // [n, nKvHeads * headDimK]
    const Matrix v = ops::linear(h, w.value);  // [n, nKvHeads * headDimV]
    if (spec.rope.dims > 0) {
        ops::applyRope(q, spec.nHeads, spec.headDimK, spec.rope, ctx.rope);
        ops::applyRope(k, spec.nKvHeads, spec.headDimK, spec.rope, ctx.rope);
    }
    const Eigen::Index n = h.rows();
    const int dk = spec.headDimK;
    const int dv = spec.headDimV;
    Matrix concat(n, spec.nHeads * dv);  // [n, nHeads * headDimV]
    for (int head = 0; head < spec.nHeads; ++head) {
        const std::ptrdiff_t index = static_cast<std::ptrdiff_t>(layer) * spec.nHeads + head;
        MatrixMap logits(r.logits.data() + index * n * n, n, n);
        MatrixMap probs(r.probs.data() + index * n * n, n, n);
        MatrixMap context(r.context.data() + index * n * dv, n, dv);
        Eigen::Map<Vector> entropy(r.entropy.data() + index * n, n);
        const int kv = spec.kvHeadOf(head);
        r.fullyMaskedRows = ops::attentionInto(q.middleCols(head * dk, dk),
                                               k.middleCols(kv * dk, dk), v.middleCols(kv * dv, dv),
                                               scale, ctx.bias, {logits, probs, context, entropy});
        concat.middleCols(head * dv, dv) = context;
    }
    return ops::linear(concat, w.output);
}

Matrix feedForward(const model::LayerWeights& w, const Matrix& x, const ModelSpec& spec) {
    if (spec.ffnKind == model::FfnKind::Gated) {
        Matrix gate = ops::linear(x, w.ffnGate);
        ops::activate(gate, spec.activation);
        return ops::linear(gate.cwiseProduct(ops::linear(x, w.ffnUp)), w.ffnDown);
    }
    Matrix f = ops::linear(x, w.ffnUp);
    ops::activate(f, spec.activation);
    return ops::linear(f, w.ffnDown);
}

void allocate(ForwardResult& r, const ModelSpec& spec, const ForwardInput& input) {
    r.nLayers = spec.nLayers;
    r.nHeads = spec.nHeads;
    r.nKvHeads = spec.nKvHeads;
    r.nTokens = static_cast<int>(input.tokenIds.size());
    r.headDimV = spec.headDimV;
    r.tokenIds = input.tokenIds;
    const auto heads =
        static_cast<std::size_t>(spec.nLayers) * static_cast<std::size_t>(spec.nHeads);
    const auto n = static_cast<std::size_t>(r.nTokens);
    r.logits.resize(heads * n * n);
    r.probs.resize(heads * n * n);
    r.entropy.resize(heads * n);
    r.context.resize(heads * n * static_cast<std::size_t>(spec.headDimV));
    r.scales.resize(static_cast<std::size_t>(spec.nLayers));
}

}  // namespace

ops::MaskSpec maskSpecFor(const ModelSpec& spec, const MaskChoice& choice, int nTokens) {
    ops::MaskSpec mask;
    MaskKind kind = choice.kind;
    if (kind == MaskKind::ModelDefault) {
        kind = spec.defaultMask == model::DefaultMask::Causal ? MaskKind::Causal
                                                              : MaskKind::Bidirectional;
    }
    if (kind == MaskKind::Causal) {
        mask.causal = true;
        mask.causalOffset = choice.causalOffset;
        if (spec.slidingWindow && choice.modelWindow) {
            mask.window = spec.slidingWindow;
        }
    }
    if (kind == MaskKind::Custom) {
        if (!choice.custom) {
            throw InvalidArgument("forward pass: a custom mask needs a matrix of allowed keys");
        }
        mask.allowed = *choice.custom;
    }
    if (choice.paddingTokens < 0 || choice.paddingTokens > nTokens) {
        throw InvalidArgument("forward pass: " + std::to_string(choice.paddingTokens) +
                              " padding tokens for a sequence of " + std::to_string(nTokens));
    }
    if (choice.paddingTokens > 0) {
        BoolMatrix allowed = mask.allowed.value_or(BoolMatrix::Ones(nTokens, nTokens));
        allowed.rightCols(choice.paddingTokens).setZero();
        mask.allowed = std::move(allowed);
    }
    return mask;
}

std::string maskKindName(const ModelSpec& spec, const MaskChoice& choice) {
    std::string name;
    switch (choice.kind) {
        case MaskKind::ModelDefault:
            name = spec.defaultMask == model::DefaultMask::Causal ? "causal" : "none";
            break;
        case MaskKind::Bidirectional:
            name = "none";
            break;
        case MaskKind::Causal:
            name = choice.causalOffset == 0
                       ? "causal"
                       : "causal (offset " + std::to_string(choice.causalOffset) + ")";
            break;
        case MaskKind::Custom:
            name = "custom";
            break;
    }
    if (name.starts_with("causal") && spec.slidingWindow && choice.modelWindow) {
        name += " + window " + std::to_string(*spec.slidingWindow);
    }
    if (choice.paddingTokens > 0) {
        name += " + " + std::to_string(choice.paddingTokens) + " padding";
    }
    return name;
}

ForwardResult runForward(const model::Model& m, const ForwardInput& input,
                         const ForwardOptions& options) {
    const ModelSpec& spec = m.spec;
    checkInput(spec, input);
    ForwardResult r;
    allocate(r, spec, input);
    const std::vector<int> pos = positionIds(spec, input.tokenIds);
    AttentionContext ctx;
    ctx.bias = ops::buildBias(maskSpecFor(spec, options.mask, r.nTokens), r.nTokens, r.nTokens);
    if (spec.rope.dims > 0) {
        ctx.rope = ops::ropeTable(spec.rope, pos);
    }
    r.allowed = ops::allowedFromBias(ctx.bias);
    r.maskKind = maskKindName(spec, options.mask);
    Matrix x = embed(m, input, pos);  // [n, dModel]
    const bool pre = spec.normPlacement == model::NormPlacement::Pre;
    const auto norm = [&](const Matrix& t, const model::Norm& n) {
        return ops::normalize(t, n, spec.normKind, spec.normEps);
    };
    for (int layer = 0; layer < spec.nLayers; ++layer) {
        options.cancel.throwIfCancelled();
        const model::LayerWeights& w = m.weights.layers[static_cast<std::size_t>(layer)];
        const float scale = options.scale.value_or(spec.defaultScale(layer));
        r.scales[static_cast<std::size_t>(layer)] = scale;
        if (pre) {
            x += attendLayer(m, layer, norm(x, w.attnNorm), ctx, scale, r);
            x += feedForward(w, norm(x, w.ffnNorm), spec);
        } else {
            x = norm(x + attendLayer(m, layer, x, ctx, scale, r), w.attnNorm);
            x = norm(x + feedForward(w, x, spec), w.ffnNorm);
        }
        if (options.progress) {
            options.progress(static_cast<double>(layer + 1) / spec.nLayers);
        }
    }
    if (spec.finalNorm) {
        x = norm(x, m.weights.finalNorm);
    }
    r.hidden = std::move(x);
    return r;
}

}  // namespace attnscope::forward
