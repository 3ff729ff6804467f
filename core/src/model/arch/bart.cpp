// BART, mBART and Marian: encoder and decoder stacks with learned (BART, mBART) or sinusoidal
// (Marian) absolute positions, biased projections and LayerNorm. BART is post-norm with a
// LayerNorm on the embeddings; mBART is pre-norm and adds a final LayerNorm to each stack;
// Marian is post-norm without the embedding norm. BART and mBART's position tables have two
// extra rows: positions count from 2. scale_embedding multiplies the token embeddings by
// sqrt(d_model). The LM head adds `final_logits_bias`, a [1, vocab] buffer.
#include <cmath>
#include <deque>

#include "attnscope/base/error.h"
#include "attnscope/io/json_access.h"
#include "bert_family.h"

namespace attnscope::model::arch {

namespace {

enum class Variant { Bart, MBart, Marian };

ModelSpec readStack(const io::JsonFile& config, Variant variant, bool decoder) {
    const std::string& file = config.fileName();
    const std::string side = decoder ? "decoder_" : "encoder_";
    ModelSpec spec;
    spec.dModel = config.positiveInt("d_model");
    spec.nLayers = config.positiveInt(side + "layers");
    spec.nHeads = config.positiveInt(side + "attention_heads");
    spec.dFfn = config.positiveInt(side + "ffn_dim");
    spec.vocabSize = config.positiveInt("vocab_size");
    if (spec.dModel % spec.nHeads != 0) {
        throw FormatError(file + ": d_model (" + std::to_string(spec.dModel) +
                          ") is not divisible by " + side + "attention_heads (" +
                          std::to_string(spec.nHeads) + ")");
    }
    spec.headDimK = spec.headDimV = spec.dModel / spec.nHeads;
    const int maxPositions = config.positiveInt("max_position_embeddings");
    spec.positionOffset = variant == Variant::Marian ? 0 : 2;
    spec.maxPositions = maxPositions + spec.positionOffset;
    spec.sinusoidalPositions = variant == Variant::Marian;
    spec.typeVocabSize = 0;
    spec.padTokenId = config.optionalInt("pad_token_id");
    spec.normEps = 1e-5f;  // nn.LayerNorm's default; these configs have no epsilon
    spec.activation =
        parseActivation(config.string("activation_function", "gelu"), file, "activation_function");
    spec.normPlacement = variant == Variant::MBart ? NormPlacement::Pre : NormPlacement::Post;
    spec.embeddingNorm = variant != Variant::Marian;
    spec.finalNorm = variant == Variant::MBart;
    if (config.boolean("scale_embedding", variant == Variant::Marian)) {
        spec.embeddingScale = std::sqrt(static_cast<float>(spec.dModel));
    }
    spec.tieWordEmbeddings = config.boolean("tie_word_embeddings", true);
    spec.defaultMask = decoder ? DefaultMask::Causal : DefaultMask::Bidirectional;
    spec.crossAttention = decoder;
    spec.decoderStartTokenId = config.optionalInt("decoder_start_token_id");
    spec.baseModelOnly = namesOnlyBaseModel(config);
    spec.eosTokenId = config.optionalInt("eos_token_id");
    if (variant == Variant::Marian && !config.boolean("share_encoder_decoder_embeddings", true)) {
        throw UnsupportedModel(file +
                               ": share_encoder_decoder_embeddings: separate source and target "
                               "embeddings are not supported");
    }
    return spec;
}

template <Variant V, bool Decoder>
ModelSpec readConfig(const io::JsonFile& config) {
    return readStack(config, V, Decoder);
}

bool embeddingNorm(const ModelSpec& s) {
    return s.embeddingNorm;
}

bool learned(const ModelSpec& s) {
    return !s.sinusoidalPositions;
}

bool finalNorm(const ModelSpec& s) {
    return s.finalNorm;
}

const char* kept(const std::string& name) {
    static std::deque<std::string> names;  // the table keeps pointers; a deque never moves
    return names.emplace_back(name).c_str();
}

// A weight and its bias under `base`.
void linear(std::vector<TensorEntry>& e, Role weight, Role bias, const std::string& base,
            bool (*needed)(const ModelSpec&) = nullptr) {
    e.push_back({weight, kept(base + ".weight"), Layout::LinearOutIn, needed});
    e.push_back({bias, kept(base + ".bias"), Layout::Plain, needed});
}

void norm(std::vector<TensorEntry>& e, Role weight, Role bias, const std::string& base,
          bool (*needed)(const ModelSpec&) = nullptr) {
    e.push_back({weight, kept(base + ".weight"), Layout::Plain, needed});
    e.push_back({bias, kept(base + ".bias"), Layout::Plain, needed});
}

std::vector<TensorEntry> stackEntries(const std::string& stack) {
    using enum Role;
    std::vector<TensorEntry> e = {{TokenEmbedding, "shared.weight", Layout::Plain}};
    e.push_back(
        {PositionEmbedding, kept(stack + ".embed_positions.weight"), Layout::Plain, learned});
    norm(e, EmbeddingNormWeight, EmbeddingNormBias, stack + ".layernorm_embedding", embeddingNorm);
    const std::string layer = stack + ".layers.{}.";
    linear(e, QueryWeight, QueryBias, layer + "self_attn.q_proj");
    linear(e, KeyWeight, KeyBias, layer + "self_attn.k_proj");
    linear(e, ValueWeight, ValueBias, layer + "self_attn.v_proj");
    linear(e, OutputWeight, OutputBias, layer + "self_attn.out_proj");
    norm(e, AttnNormWeight, AttnNormBias, layer + "self_attn_layer_norm");
    if (stack == "decoder") {
        linear(e, CrossQueryWeight, CrossQueryBias, layer + "encoder_attn.q_proj");
        linear(e, CrossKeyWeight, CrossKeyBias, layer + "encoder_attn.k_proj");
        linear(e, CrossValueWeight, CrossValueBias, layer + "encoder_attn.v_proj");
        linear(e, CrossOutputWeight, CrossOutputBias, layer + "encoder_attn.out_proj");
        norm(e, CrossNormWeight, CrossNormBias, layer + "encoder_attn_layer_norm");
    }
    linear(e, FfnUpWeight, FfnUpBias, layer + "fc1");
    linear(e, FfnDownWeight, FfnDownBias, layer + "fc2");
    norm(e, FfnNormWeight, FfnNormBias, layer + "final_layer_norm");
    norm(e, FinalNormWeight, FinalNormBias, stack + ".layer_norm", finalNorm);
    return e;
}

const PredictionLayout kLmHead = {
    PredictionKind::CausalLm, {}, "lm_head.weight", "final_logits_bias", Role::FinalLogitsBias};

// Marian's sinusoidal tables are rebuilt at load time, so stored copies are not read.
// Older checkpoints also store each stack's (tied) copy of the embedding.
const std::vector<const char*> kEncoderIgnored = {"decoder.", "lm_head.", "final_logits_bias",
                                                  "encoder.embed_tokens.",
                                                  "encoder.embed_positions."};
const std::vector<const char*> kDecoderIgnored = {"encoder.", "decoder.embed_tokens.",
                                                  "decoder.embed_positions."};

const ArchTable kBartDecoder = {
    "bart", {"model."}, stackEntries("decoder"), kDecoderIgnored, readConfig<Variant::Bart, true>,
    kLmHead};
const ArchTable kMBartDecoder = {
    "mbart", {"model."}, stackEntries("decoder"), kDecoderIgnored, readConfig<Variant::MBart, true>,
    kLmHead};
const ArchTable kMarianDecoder = {"marian",
                                  {"model."},
                                  stackEntries("decoder"),
                                  kDecoderIgnored,
                                  readConfig<Variant::Marian, true>,
                                  kLmHead};

}  // namespace

bool namesOnlyBaseModel(const io::JsonFile& config) {
    const io::Json* list = io::optionalArray(config.root(), config.at(), "architectures");
    if (list == nullptr || list->empty()) {
        return false;
    }
    for (const io::Json& item : *list) {
        const std::string name = item.is_string() ? item.get<std::string>() : "";
        if (!name.ends_with("Model") || name.find("For") != std::string::npos ||
            name.ends_with("MTModel") || name.ends_with("LMHeadModel")) {
            return false;
        }
    }
    return true;
}

const ArchTable kBart = {"bart",
                         {"model."},
                         stackEntries("encoder"),
                         kEncoderIgnored,
                         readConfig<Variant::Bart, false>,
                         {},
                         &kBartDecoder};
const ArchTable kMBart = {"mbart",
                          {"model."},
                          stackEntries("encoder"),
                          kEncoderIgnored,
                          readConfig<Variant::MBart, false>,
                          {},
                          &kMBartDecoder};
const ArchTable kMarian = {"marian",
                           {"model."},
                           stackEntries("encoder"),
                           kEncoderIgnored,
                           readConfig<Variant::Marian, false>,
                           {},
                           &kMarianDecoder};

}  // namespace attnscope::model::arch
