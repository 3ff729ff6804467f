// The Llama family (Llama, Mistral, Qwen2): pre-norm causal decoders with RMSNorm, rotary
// positions, grouped-query attention and a gated (SwiGLU) feed-forward. The three model types
// share tensor names and differ only in config flags: Qwen2's q/k/v biases, Mistral's sliding
// window, Llama's optional attention_bias / mlp_bias.
#include <cmath>
#include <optional>

#include "attnscope/base/error.h"
#include "attnscope/io/json_access.h"
#include "bert_family.h"

namespace attnscope::model::arch {

namespace {

bool qkvBias(const ModelSpec& s) {
    return s.qkvBias;
}

bool outputBias(const ModelSpec& s) {
    return s.outputBias;
}

bool ffnBias(const ModelSpec& s) {
    return s.ffnBias;
}

// LongRoPE's per-frequency factors (Phi-3's short_factor / long_factor): one for each rotated
// pair.
std::vector<float> longRopeFactors(const io::Json& s, const io::JsonAt& at, const char* key,
                                   int pairs) {
    const io::Json& list = io::member(s, at, key);
    io::expectArray(list, at[key]);
    if (list.size() != static_cast<std::size_t>(pairs)) {
        io::failAt(at[key], "has " + std::to_string(list.size()) + " factors; the rotated " +
                                "dimensions need " + std::to_string(pairs));
    }
    std::vector<float> out;
    for (std::size_t k = 0; k < list.size(); ++k) {
        const double f = io::asNumber(list[k], at[key][k]);
        if (!(f > 0.0) || !std::isfinite(f)) {
            io::failAt(at[key][k], "must be a positive number");
        }
        out.push_back(static_cast<float>(f));
    }
    return out;
}

// methods.md §13: short factors up to original_max_position_embeddings, long ones past it; the
// attention factor sqrt(1 + ln(factor) / ln(original)) scales cos and sin, where factor is
// max_position_embeddings / original when the scaling does not give it.
void readLongRope(const io::Json& s, const io::JsonAt& at, const io::JsonFile& config,
                  int maxPositions, RopeSpec& rope) {
    rope.scaling = RopeScaling::LongRope;
    const int pairs = rope.dims / 2;
    rope.shortFactors = longRopeFactors(s, at, "short_factor", pairs);
    rope.longFactors = longRopeFactors(s, at, "long_factor", pairs);
    std::optional<double> original = io::optionalNumber(s, at, "original_max_position_embeddings");
    if (config.has("original_max_position_embeddings")) {
        original = config.positiveInt("original_max_position_embeddings");
    }
    rope.originalMaxPositions = original.value_or(maxPositions);
    rope.factor = io::optionalNumber(s, at, "factor")
                      .value_or(static_cast<double>(maxPositions) / rope.originalMaxPositions);
    if (!(rope.originalMaxPositions > 1.0) || !(rope.factor > 0.0)) {
        io::failAt(at, "factor and original_max_position_embeddings must be positive");
    }
    const std::optional<double> attention = io::optionalNumber(s, at, "attention_factor");
    rope.attentionFactor = attention.value_or(
        rope.factor <= 1.0
            ? 1.0
            : std::sqrt(1.0 + std::log(rope.factor) / std::log(rope.originalMaxPositions)));
}

// Newer configs nest the RoPE settings in "rope_parameters"; older ones use rope_theta and
// rope_scaling at the top level. Both are read from one JSON object here; rope.dims must be set.
void readRopeScaling(const io::Json& s, const io::JsonAt& at, const io::JsonFile& config,
                     int maxPositions, RopeSpec& rope) {
    const auto num = [&](const char* key) { return io::asNumber(io::member(s, at, key), at[key]); };
    std::string type = "default";
    for (const char* key : {"rope_type", "type"}) {
        if (const auto name = io::optionalString(s, at, key)) {
            type = *name;
            break;
        }
    }
    if (type == "default") {
        return;
    }
    if (type == "linear") {
        rope.scaling = RopeScaling::Linear;
        rope.factor = num("factor");
    } else if (type == "llama3") {
        rope.scaling = RopeScaling::Llama3;
        rope.factor = num("factor");
        rope.lowFreqFactor = num("low_freq_factor");
        rope.highFreqFactor = num("high_freq_factor");
        rope.originalMaxPositions = num("original_max_position_embeddings");
        if (!(rope.highFreqFactor > rope.lowFreqFactor)) {
            io::failAt(at, "high_freq_factor must exceed low_freq_factor");
        }
    } else if (type == "longrope") {
        readLongRope(s, at, config, maxPositions, rope);
        return;
    } else {
        throw UnsupportedModel(at.file + ": " + at["rope_type"].path + ": '" + type +
                               "' is not supported (supported: default, linear, llama3, longrope)");
    }
    if (!(rope.factor > 0.0) || !(rope.originalMaxPositions > 0.0)) {
        io::failAt(at, "factor and original_max_position_embeddings must be positive");
    }
}

void readRope(const io::JsonFile& config, ModelSpec& spec) {
    const io::JsonAt at = config.at();
    double partial = config.number("partial_rotary_factor", 1.0);
    spec.rope.theta = config.number("rope_theta", 10000.0);
    const io::Json* nested = io::optionalObject(config.root(), at, "rope_parameters");
    if (nested != nullptr) {
        const io::JsonAt pAt = at["rope_parameters"];
        spec.rope.theta = io::optionalNumber(*nested, pAt, "rope_theta").value_or(spec.rope.theta);
        partial = io::optionalNumber(*nested, pAt, "partial_rotary_factor").value_or(partial);
    }
    if (!(spec.rope.theta > 0.0) || !(partial > 0.0 && partial <= 1.0)) {
        throw FormatError(config.fileName() +
                          ": rope_theta must be positive and partial_rotary_factor in (0, 1]");
    }
    spec.rope.dims = static_cast<int>(spec.headDimK * partial);
    if (nested != nullptr) {
        readRopeScaling(*nested, at["rope_parameters"], config, spec.maxPositions, spec.rope);
    } else if (const io::Json* scaling = io::optionalObject(config.root(), at, "rope_scaling")) {
        readRopeScaling(*scaling, at["rope_scaling"], config, spec.maxPositions, spec.rope);
    }
}

}  // namespace

std::vector<TensorEntry> llamaTensorEntries(NormPlacement norms, bool qkNorm) {
    using enum Role;
    std::vector<TensorEntry> e = {{TokenEmbedding, "embed_tokens.weight", Layout::Plain}};
    if (norms != NormPlacement::Output) {
        e.push_back({AttnNormWeight, "layers.{}.input_layernorm.weight", Layout::Plain});
    }
    const std::string attention = "layers.{}.self_attn.";
    addLinear(e, QueryWeight, QueryBias, attention + "q_proj", qkvBias);
    addLinear(e, KeyWeight, KeyBias, attention + "k_proj", qkvBias);
    addLinear(e, ValueWeight, ValueBias, attention + "v_proj", qkvBias);
    addLinear(e, OutputWeight, OutputBias, attention + "o_proj", outputBias);
    if (qkNorm) {
        e.push_back({QueryNormWeight, "layers.{}.self_attn.q_norm.weight", Layout::Plain});
        e.push_back({KeyNormWeight, "layers.{}.self_attn.k_norm.weight", Layout::Plain});
    }
    // Llama (and Gemma 1) call the FFN's pre-norm post_attention_layernorm; Gemma 2/3 and
    // OLMo-2 give that name to the norm on the attention's output.
    const char* const attnOut = "layers.{}.post_attention_layernorm.weight";
    if (norms == NormPlacement::Pre) {
        e.push_back({FfnNormWeight, attnOut, Layout::Plain});
    } else {
        e.push_back({PostAttnNormWeight, attnOut, Layout::Plain});
        if (norms == NormPlacement::Sandwich) {
            e.push_back(
                {FfnNormWeight, "layers.{}.pre_feedforward_layernorm.weight", Layout::Plain});
        }
        e.push_back(
            {PostFfnNormWeight, "layers.{}.post_feedforward_layernorm.weight", Layout::Plain});
    }
    const std::string mlp = "layers.{}.mlp.";
    addLinear(e, FfnGateWeight, FfnGateBias, mlp + "gate_proj", ffnBias);
    addLinear(e, FfnUpWeight, FfnUpBias, mlp + "up_proj", ffnBias);
    addLinear(e, FfnDownWeight, FfnDownBias, mlp + "down_proj", ffnBias);
    e.push_back({FinalNormWeight, "norm.weight", Layout::Plain});
    return e;
}

std::vector<const char*> llamaIgnored() {
    // rotary_emb.inv_freq is a buffer older checkpoints saved; score. is a classification head.
    return {"layers.{}.self_attn.rotary_emb.", "rotary_emb.", "score."};
}

PredictionLayout causalLmHead() {
    return {PredictionKind::CausalLm, {}, "lm_head.weight", nullptr};
}

void readQwenWindow(const io::JsonFile& config, ModelSpec& spec) {
    if (config.boolean("use_sliding_window", false) && config.has("sliding_window")) {
        spec.slidingWindow = config.positiveInt("sliding_window");
        const int first = config.optionalInt("max_window_layers").value_or(0);
        readLayerTypes(config, spec, [first](int layer) { return layer >= first; });
    }
}

void setLlamaFamilyFlags(ModelSpec& spec) {
    spec.typeVocabSize = 0;
    spec.normKind = NormKind::RmsNorm;
    spec.ffnKind = FfnKind::Gated;
    spec.normPlacement = NormPlacement::Pre;
    spec.embeddingNorm = false;
    spec.finalNorm = true;
    spec.learnedPositions = false;
    spec.defaultMask = DefaultMask::Causal;
}

ModelSpec readLlamaFamilyConfig(const io::JsonFile& config) {
    const std::string& file = config.fileName();
    ModelSpec spec;
    spec.modelType = config.string("model_type", "llama");
    spec.dModel = config.positiveInt("hidden_size");
    spec.nHeads = config.positiveInt("num_attention_heads");
    spec.nKvHeads =
        config.has("num_key_value_heads") ? config.positiveInt("num_key_value_heads") : spec.nHeads;
    spec.nLayers = config.positiveInt("num_hidden_layers");
    spec.dFfn = config.positiveInt("intermediate_size");
    spec.vocabSize = config.positiveInt("vocab_size");
    spec.maxPositions = config.has("max_position_embeddings")
                            ? config.positiveInt("max_position_embeddings")
                            : 2048;
    if (config.has("head_dim")) {
        spec.headDimK = config.positiveInt("head_dim");
        spec.headDimV = spec.headDimK;
    } else {
        setHeadDims(spec, file, "hidden_size", "num_attention_heads", " and there is no head_dim");
    }
    spec.typeVocabSize = 0;
    spec.padTokenId = config.optionalInt("pad_token_id");
    spec.normEps = static_cast<float>(config.number("rms_norm_eps", 1e-6));
    spec.activation = parseActivation(config.string("hidden_act", "silu"), file, "hidden_act");
    setLlamaFamilyFlags(spec);
    spec.qkvBias = spec.outputBias = config.boolean("attention_bias", false);
    spec.ffnBias = config.boolean("mlp_bias", false);
    spec.tieWordEmbeddings = config.boolean("tie_word_embeddings", false);
    readRope(config, spec);
    return spec;
}

namespace {

ModelSpec readLlamaConfig(const io::JsonFile& config) {
    return readLlamaFamilyConfig(config);
}

ModelSpec readMistralConfig(const io::JsonFile& config) {
    ModelSpec spec = readLlamaConfig(config);
    // MistralConfig defaults sliding_window to 4096; an explicit null switches it off.
    if (!config.root().contains("sliding_window")) {
        spec.slidingWindow = 4096;
    } else if (config.has("sliding_window")) {
        spec.slidingWindow = config.positiveInt("sliding_window");
    }
    return spec;
}

ModelSpec readQwen2Config(const io::JsonFile& config) {
    ModelSpec spec = readLlamaConfig(config);
    spec.qkvBias = true;
    spec.outputBias = false;
    spec.ffnBias = false;
    readQwenWindow(config, spec);
    return spec;
}

}  // namespace

const ArchTable kLlama = {"llama",        {"model."},      llamaTensorEntries(NormPlacement::Pre),
                          llamaIgnored(), readLlamaConfig, causalLmHead()};

const ArchTable kMistral = {
    "mistral",      {"model."},        llamaTensorEntries(NormPlacement::Pre),
    llamaIgnored(), readMistralConfig, causalLmHead()};

const ArchTable kQwen2 = {"qwen2",        {"model."},      llamaTensorEntries(NormPlacement::Pre),
                          llamaIgnored(), readQwen2Config, causalLmHead()};

}  // namespace attnscope::model::arch
