// The Llama family (Llama, Mistral, Qwen2): pre-norm causal decoders with RMSNorm, rotary
// positions, grouped-query attention and a gated (SwiGLU) feed-forward. The three model types
// share tensor names and differ only in config flags: Qwen2's q/k/v biases, Mistral's sliding
// window, Llama's optional attention_bias / mlp_bias.
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

std::vector<TensorEntry> llamaEntries() {
    using enum Role;
    std::vector<TensorEntry> e = {
        {TokenEmbedding, "embed_tokens.weight", Layout::Plain},
        {AttnNormWeight, "layers.{}.input_layernorm.weight", Layout::Plain},
    };
    const std::string attention = "layers.{}.self_attn.";
    addLinear(e, QueryWeight, QueryBias, attention + "q_proj", qkvBias);
    addLinear(e, KeyWeight, KeyBias, attention + "k_proj", qkvBias);
    addLinear(e, ValueWeight, ValueBias, attention + "v_proj", qkvBias);
    addLinear(e, OutputWeight, OutputBias, attention + "o_proj", outputBias);
    e.push_back({FfnNormWeight, "layers.{}.post_attention_layernorm.weight", Layout::Plain});
    const std::string mlp = "layers.{}.mlp.";
    addLinear(e, FfnGateWeight, FfnGateBias, mlp + "gate_proj", ffnBias);
    addLinear(e, FfnUpWeight, FfnUpBias, mlp + "up_proj", ffnBias);
    addLinear(e, FfnDownWeight, FfnDownBias, mlp + "down_proj", ffnBias);
    e.push_back({FinalNormWeight, "norm.weight", Layout::Plain});
    return e;
}

// Newer configs nest the RoPE settings in "rope_parameters"; older ones use rope_theta and
// rope_scaling at the top level. Both are read from one JSON object here.
void readRopeScaling(const io::Json& s, const io::JsonAt& at, RopeSpec& rope) {
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
    } else {
        throw UnsupportedModel(at.file + ": " + at["rope_type"].path + ": '" + type +
                               "' is not supported (supported: default, linear, llama3)");
    }
    if (!(rope.factor > 0.0) || !(rope.originalMaxPositions > 0.0)) {
        io::failAt(at, "factor and original_max_position_embeddings must be positive");
    }
}

void readRope(const io::JsonFile& config, ModelSpec& spec) {
    const io::JsonAt at = config.at();
    double partial = config.number("partial_rotary_factor", 1.0);
    spec.rope.theta = config.number("rope_theta", 10000.0);
    if (const io::Json* p = io::optionalObject(config.root(), at, "rope_parameters")) {
        const io::JsonAt pAt = at["rope_parameters"];
        spec.rope.theta = io::optionalNumber(*p, pAt, "rope_theta").value_or(spec.rope.theta);
        partial = io::optionalNumber(*p, pAt, "partial_rotary_factor").value_or(partial);
        readRopeScaling(*p, pAt, spec.rope);
    } else if (const io::Json* scaling = io::optionalObject(config.root(), at, "rope_scaling")) {
        readRopeScaling(*scaling, at["rope_scaling"], spec.rope);
    }
    if (!(spec.rope.theta > 0.0) || !(partial > 0.0 && partial <= 1.0)) {
        throw FormatError(config.fileName() +
                          ": rope_theta must be positive and partial_rotary_factor in (0, 1]");
    }
    spec.rope.dims = static_cast<int>(spec.headDimK * partial);
}

}  // namespace

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

namespace {

ModelSpec readLlamaConfig(const io::JsonFile& config) {
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
    // Qwen2 windows only layers >= max_window_layers, and only with use_sliding_window.
    if (config.boolean("use_sliding_window", false) && config.has("sliding_window")) {
        const int first = config.optionalInt("max_window_layers").value_or(0);
        if (first <= 0) {
            spec.slidingWindow = config.positiveInt("sliding_window");
        } else if (first < spec.nLayers) {
            // One mask per forward pass is recorded and shown; a per-layer mask is not.
            throw UnsupportedModel(config.fileName() +
                                   ": max_window_layers: sliding window in only some layers (" +
                                   std::to_string(first) + " of " + std::to_string(spec.nLayers) +
                                   " without) is not supported");
        }
    }
    return spec;
}

// rotary_emb.inv_freq is a buffer older checkpoints saved; score. is a classification head.
const std::vector<const char*> kLlamaIgnored = {"layers.{}.self_attn.rotary_emb.", "rotary_emb.",
                                                "score."};

const PredictionLayout kCausalLmHead = {PredictionKind::CausalLm, {}, "lm_head.weight", nullptr};

}  // namespace

const ArchTable kLlama = {"llama",       {"model."},      llamaEntries(),
                          kLlamaIgnored, readLlamaConfig, kCausalLmHead};

const ArchTable kMistral = {"mistral",     {"model."},        llamaEntries(),
                            kLlamaIgnored, readMistralConfig, kCausalLmHead};

const ArchTable kQwen2 = {"qwen2",       {"model."},      llamaEntries(),
                          kLlamaIgnored, readQwen2Config, kCausalLmHead};

}  // namespace attnscope::model::arch
