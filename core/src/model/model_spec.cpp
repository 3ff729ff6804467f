#include "attnscope/model/model_spec.h"

#include <algorithm>
#include <cmath>

#include "attnscope/base/enum_names.h"
#include "attnscope/base/error.h"

namespace attnscope::model {

int ModelSpec::maxTokens() const {
    if (positions == PositionScheme::SkipPadTokens && padTokenId) {
        return maxPositions - *padTokenId - 1;
    }
    return maxPositions - positionOffset;
}

float ModelSpec::defaultScale(int layer) const {
    float scale = scaleAttention ? 1.0f / std::sqrt(static_cast<float>(headDimK)) : 1.0f;
    if (queryPreAttnScalar) {
        // Gemma's self.scaling, a Python float (double) that multiplies the float32 scores.
        scale = static_cast<float>(std::pow(*queryPreAttnScalar, -0.5));
    }
    if (scaleByInverseLayer) {
        scale /= static_cast<float>(layer + 1);
    }
    return scale;
}

std::string activationName(Activation a) {
    static constexpr EnumName<Activation> kNames[] = {
        {Activation::Gelu, "gelu (erf)"},
        {Activation::GeluTanh, "gelu (tanh approximation)"},
        {Activation::Relu, "relu"},
        {Activation::Silu, "silu"}};
    return std::string(nameIn(kNames, a, "?"));
}

std::string normPlacementName(NormPlacement p) {
    static constexpr EnumName<NormPlacement> kNames[] = {
        {NormPlacement::Post, "post-norm"},
        {NormPlacement::Pre, "pre-norm"},
        {NormPlacement::Sandwich, "pre- and post-sublayer norms"},
        {NormPlacement::Output, "post-sublayer norms"}};
    return std::string(nameIn(kNames, p, "?"));
}

Activation parseActivation(const std::string& name, const std::string& file,
                           const std::string& key) {
    if (name == "gelu") {
        return Activation::Gelu;
    }
    if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast") {
        return Activation::GeluTanh;
    }
    if (name == "relu") {
        return Activation::Relu;
    }
    if (name == "silu" || name == "swish") {
        return Activation::Silu;
    }
    throw UnsupportedModel(file + ": " + key + ": activation '" + name +
                           "' is not supported (expected gelu, gelu_new, gelu_pytorch_tanh, "
                           "gelu_fast, relu, silu)");
}

namespace {

// Weight shapes multiply these in int; a corrupt head_dim must be named as such rather than
// overflow there or surface later as a complaint about rotary dimensions.
void checkHeadWidths(const ModelSpec& spec, const std::string& file) {
    constexpr std::int64_t kMaxWidth = kMaxModelWidth;
    const std::int64_t query = std::int64_t{spec.nHeads} * spec.headDimK;
    const std::int64_t keyValue =
        std::int64_t{spec.nKvHeads} * (std::int64_t{spec.headDimK} + spec.headDimV);
    if (spec.headDimV <= 0 || query > kMaxWidth || keyValue > kMaxWidth ||
        spec.dModel > kMaxWidth || spec.dFfn > kMaxWidth) {
        throw FormatError(file + ": head width " + std::to_string(spec.headDimK) + " (value " +
                          std::to_string(spec.headDimV) + ") × " + std::to_string(spec.nHeads) +
                          " heads, hidden size " + std::to_string(spec.dModel) +
                          ", feed-forward size " + std::to_string(spec.dFfn) +
                          ": each must be positive and at most 2^24 wide");
    }
}

// RoBERTa counts positions from pad_token_id + 1, so the id indexes the position table. (Other
// models only pad with it; the loader drops an impossible one there, with a warning.)
void checkPadToken(const ModelSpec& spec, const std::string& file) {
    if (!spec.padTokenId || spec.positions != PositionScheme::SkipPadTokens) {
        return;
    }
    const int pad = *spec.padTokenId;
    if (pad < 0 || pad >= spec.vocabSize) {
        throw FormatError(file + ": pad_token_id: " + std::to_string(pad) +
                          " is not a token id (expected 0 to vocab_size - 1 = " +
                          std::to_string(spec.vocabSize - 1) + ")");
    }
    if (pad >= spec.maxPositions - 1) {
        throw FormatError(file + ": pad_token_id: " + std::to_string(pad) +
                          " leaves no positions: they start at pad_token_id + 1 and "
                          "max_position_embeddings is " +
                          std::to_string(spec.maxPositions));
    }
}

// T5's buckets: half of them (each direction, when bidirectional) split into exact and
// logarithmic ones, so fewer than 4 leave no exact bucket and the logarithm divides by zero.
// Marian's sinusoidal table is built from max_position_embeddings alone, with no tensor in the
// checkpoint to bound it, so its size is limited here before anything is allocated.
void checkSeq2SeqParts(const ModelSpec& spec, const std::string& file) {
    constexpr int kMaxBuckets = 1 << 16;
    if (spec.relativeBuckets != 0) {
        const int perSide =
            spec.relativeBidirectional ? spec.relativeBuckets / 2 : spec.relativeBuckets;
        if (spec.relativeBuckets < 4 || spec.relativeBuckets > kMaxBuckets ||
            spec.relativeMaxDistance <= perSide / 2) {
            throw FormatError(
                file + ": relative_attention_num_buckets (" + std::to_string(spec.relativeBuckets) +
                ") must be 4 to 65536 and relative_attention_max_distance (" +
                std::to_string(spec.relativeMaxDistance) + ") larger than the exact buckets (" +
                std::to_string(perSide / 2) + ")");
        }
    }
    // The start token is the decoder's first input: checked here, so a bad one names the key
    // when the model loads instead of failing in the first forward pass (issue 30).
    if (spec.decoderStartTokenId &&
        (*spec.decoderStartTokenId < 0 || *spec.decoderStartTokenId >= spec.vocabSize)) {
        throw FormatError(file +
                          ": decoder_start_token_id: " + std::to_string(*spec.decoderStartTokenId) +
                          " is not a token id (expected 0 to vocab_size - 1 = " +
                          std::to_string(spec.vocabSize - 1) + ")");
    }
    constexpr std::int64_t kMaxTableValues = std::int64_t{1} << 28;
    if (spec.sinusoidalPositions &&
        std::int64_t{spec.maxPositions} * spec.dModel > kMaxTableValues) {
        throw FormatError(file + ": max_position_embeddings (" + std::to_string(spec.maxPositions) +
                          ") × d_model (" + std::to_string(spec.dModel) +
                          ") is too large a sinusoidal position table (at most 2^28 values)");
    }
}

// The settings of the later decoders (Gemma, Qwen3, Phi-3): layer types, a second rope, scales
// and caps, LongRope's factors.
void checkRope(const RopeSpec& rope, int headDimK, const std::string& file) {
    if (rope.dims < 0 || rope.dims % 2 != 0 || rope.dims > headDimK) {
        throw FormatError(file + ": rotary dimensions (" + std::to_string(rope.dims) +
                          ") must be even and at most the head width (" + std::to_string(headDimK) +
                          ")");
    }
    const auto pairs = static_cast<std::size_t>(rope.dims / 2);
    if (rope.scaling == RopeScaling::LongRope &&
        (rope.shortFactors.size() != pairs || rope.longFactors.size() != pairs)) {
        throw FormatError(file + ": rope_scaling: short_factor and long_factor need " +
                          std::to_string(pairs) + " values each (one a rotated pair)");
    }
}

void checkLaterDecoderParts(const ModelSpec& spec, const std::string& file) {
    checkRope(spec.rope, spec.headDimK, file);
    if (spec.localRope) {
        checkRope(*spec.localRope, spec.headDimK, file);
        if (spec.localRope->dims != spec.rope.dims) {
            throw FormatError(file +
                              ": the local layers' rotary dimensions differ from the "
                              "global layers'");
        }
    }
    if (!spec.slidingLayers.empty() &&
        spec.slidingLayers.size() != static_cast<std::size_t>(spec.nLayers)) {
        throw FormatError(file + ": layer types: " + std::to_string(spec.slidingLayers.size()) +
                          " listed for " + std::to_string(spec.nLayers) + " layers");
    }
    if (spec.queryPreAttnScalar &&
        !(*spec.queryPreAttnScalar > 0.0 && std::isfinite(*spec.queryPreAttnScalar))) {
        throw FormatError(file + ": query_pre_attn_scalar must be a positive number");
    }
    for (const float cap : {spec.attnSoftcap, spec.finalLogitSoftcap}) {
        if (!(cap >= 0.0f) || !std::isfinite(cap)) {
            throw FormatError(file + ": soft-capping values must be positive numbers");
        }
    }
}

}  // namespace

bool ModelSpec::mixedWindows() const {
    if (!slidingWindow || slidingLayers.empty()) {
        return false;
    }
    const auto windowedLayers = std::count(slidingLayers.begin(), slidingLayers.end(), 1);
    return windowedLayers != 0 &&
           windowedLayers != static_cast<std::ptrdiff_t>(slidingLayers.size());
}

void checkSpec(const ModelSpec& spec, const std::string& file) {
    const std::pair<const char*, int> sizes[] = {
        {"number of layers", spec.nLayers},  {"number of heads", spec.nHeads},
        {"hidden size", spec.dModel},        {"feed-forward size", spec.dFfn},
        {"vocabulary size", spec.vocabSize}, {"max positions", spec.maxPositions},
        {"head width", spec.headDimK},
    };
    for (const auto& [what, value] : sizes) {
        if (value <= 0) {
            throw FormatError(file + ": " + what + " is " + std::to_string(value) +
                              ", expected a positive number");
        }
    }
    checkHeadWidths(spec, file);
    checkPadToken(spec, file);
    if (spec.maxTokens() <= 0) {
        throw FormatError(file + ": max_position_embeddings (" + std::to_string(spec.maxPositions) +
                          ") leaves no room for tokens after the position offset");
    }
    if (!(spec.normEps > 0.0f) || !(spec.normEps < 1.0f)) {
        throw FormatError(file + ": layer norm epsilon is " + std::to_string(spec.normEps) +
                          ", expected a small positive number (such as 1e-12 or 1e-6)");
    }
    if (spec.nKvHeads <= 0 || spec.nHeads % spec.nKvHeads != 0) {
        throw FormatError(file + ": num_key_value_heads (" + std::to_string(spec.nKvHeads) +
                          ") must be positive and divide num_attention_heads (" +
                          std::to_string(spec.nHeads) + ")");
    }
    checkLaterDecoderParts(spec, file);
    checkSeq2SeqParts(spec, file);
    if (spec.slidingWindow && *spec.slidingWindow <= 0) {
        throw FormatError(file + ": sliding_window: must be positive, found " +
                          std::to_string(*spec.slidingWindow));
    }
}

}  // namespace attnscope::model
