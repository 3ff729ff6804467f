#include "attnscope/forward/seq2seq_pass.h"

#include "attnscope/base/error.h"
#include "attnscope/forward/by_attention_kind.h"
#include "attnscope/forward/layer_block.h"
#include "attnscope/ops/layer_ops.h"
#include "attnscope/ops/mask.h"
#include "pass_parts.h"

namespace attnscope::forward {

namespace {

// What attentionKindName and attentionKindTitle say of each kind.
struct KindNames {
    const char* name;
    const char* title;
};

constexpr KindNames kEncoderNames{"encoder", "Encoder self-attention"};
constexpr KindNames kDecoderNames{"decoder", "Decoder self-attention"};
constexpr KindNames kCrossNames{"cross", "Cross-attention"};

const KindNames& namesOf(AttentionKind kind) {
    return byAttentionKind(kind, kEncoderNames, kDecoderNames, kCrossNames);
}

}  // namespace

std::string attentionKindName(AttentionKind kind) {
    return namesOf(kind).name;
}

std::string attentionKindTitle(AttentionKind kind) {
    return namesOf(kind).title;
}

const ForwardResult& Seq2SeqResult::of(AttentionKind kind) const {
    return byAttentionKind(kind, encoder, decoder, cross);
}

namespace {

const model::Model& decoderOf(const model::Model& m) {
    if (!m.decoder) {
        throw InvalidArgument("encoder-decoder pass: " + m.spec.modelType +
                              " is not an encoder-decoder model");
    }
    return *m.decoder;
}

// The cross-attention record: one row per decoder token, one column per source token, every
// map kept. Source padding is the only masked part.
ForwardResult allocateCross(const model::ModelSpec& spec, const Seq2SeqInput& input,
                            const ForwardResult& decoder) {
    ForwardResult r;
    detail::sizeRecord(r, spec, decoder.tokenIds, static_cast<int>(input.sourceIds.size()), true);
    r.keyTokenIds = input.sourceIds;
    r.allowed = BoolMatrix::Ones(r.nTokens, r.nKeys);
    r.allowed.rightCols(input.sourcePadding).setZero();
    r.maskKind = input.sourcePadding > 0
                     ? "source padding (" + std::to_string(input.sourcePadding) + ")"
                     : "none";
    return r;
}

// Decoder layer `layer`'s cross-attention over the encoder output `memory`, recorded into
// `cross`; returns the sub-block's output.
Matrix crossBlock(const model::Model& dec, int layer, Matrix y, const Matrix& memory,
                  const detail::AttentionContext& ctx, float scale, ForwardResult& cross) {
    const model::LayerWeights& w = dec.weights.layers[static_cast<std::size_t>(layer)];
    const Matrix h = crossAttentionInput(dec, layer, y);
    detail::Projections p;
    p.q = ops::linear(h, w.crossQuery);
    p.k = ops::linear(memory, w.crossKey);
    p.v = ops::linear(memory, w.crossValue);
    cross.scales[static_cast<std::size_t>(layer)] = scale;
    const Matrix heads = detail::attendHeads(dec.spec, p, layer, ctx, scale, cross);
    return crossAttentionResidual(dec, layer, y, ops::linear(heads, w.crossOutput));
}

ForwardOptions stackOptions(const ForwardOptions& options, double from, double to) {
    ForwardOptions o;
    o.scale = options.scale;
    o.cancel = options.cancel;
    if (options.progress) {
        o.progress = [&options, from, to](double f) { options.progress(from + (to - from) * f); };
    }
    return o;
}

}  // namespace

std::vector<std::int32_t> decoderInputIds(const model::Model& model,
                                          const std::vector<std::int32_t>& targetIds) {
    const model::Model& dec = decoderOf(model);
    if (!dec.spec.decoderStartTokenId) {
        throw InvalidArgument("encoder-decoder pass: config.json names no decoder_start_token_id");
    }
    std::vector<std::int32_t> ids = {*dec.spec.decoderStartTokenId};
    ids.insert(ids.end(), targetIds.begin(), targetIds.end());
    return ids;
}

Seq2SeqResult runSeq2Seq(const model::Model& model, const Seq2SeqInput& input,
                         const ForwardOptions& options, const ForwardResult* encoder) {
    const model::Model& dec = decoderOf(model);
    if (!options.interventions.empty()) {
        throw InvalidArgument("encoder-decoder pass: ablation is not supported for " +
                              model.spec.modelType + " models");
    }
    const double encoderShare =
        static_cast<double>(model.spec.nLayers) / (model.spec.nLayers + dec.spec.nLayers);
    Seq2SeqResult r;
    ForwardOptions encoderOptions = stackOptions(options, 0.0, encoderShare);
    encoderOptions.mask.paddingTokens = input.sourcePadding;
    if (encoder != nullptr) {
        if (encoder->tokenIds != input.sourceIds || encoder->isCross()) {
            throw InvalidArgument(
                "encoder-decoder pass: the encoder pass given ran on another "
                "source");
        }
        r.encoder = *encoder;
    } else {
        r.encoder = withContext("source", [&] {
            return runForward(model, {input.sourceIds, {}}, encoderOptions);
        });
    }

    ForwardOptions decoderOptions = stackOptions(options, encoderShare, 1.0);
    decoderOptions.mask = options.mask;
    const ForwardInput decoderInput{input.decoderIds, {}};
    detail::Pass pass;
    r.decoder = withContext(
        "decoder input", [&] { return detail::prepare(dec, decoderInput, decoderOptions, pass); });
    r.cross = allocateCross(dec.spec, input, r.decoder);
    detail::AttentionContext crossCtx;
    ops::MaskSpec crossMask;
    crossMask.allowed = r.cross.allowed;
    crossCtx.bias = ops::buildBias(crossMask, r.cross.nTokens, r.cross.nKeys);
    const Matrix& memory = r.encoder.hidden;
    pass.cross = [&](int layer, Matrix y) {
        const float scale = options.scale.value_or(dec.spec.defaultScale(layer));
        return crossBlock(dec, layer, std::move(y), memory, crossCtx, scale, r.cross);
    };
    detail::runLayers(dec, decoderOptions, pass, 0, detail::embed(dec, decoderInput, pass.pos),
                      r.decoder);
    r.cross.warnings = r.decoder.warnings;
    return r;
}

}  // namespace attnscope::forward
