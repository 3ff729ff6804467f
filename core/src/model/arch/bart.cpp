// BART, mBART and Marian: encoder and decoder stacks with learned (BART, mBART) or sinusoidal
// (Marian) absolute positions, biased projections and LayerNorm. BART is post-norm with a
// LayerNorm on the embeddings; mBART is pre-norm and adds a final LayerNorm to each stack;
// Marian is post-norm without the embedding norm. BART and mBART's position tables have two
// extra rows: positions count from 2. scale_embedding multiplies the token embeddings by
// sqrt(d_model). The LM head adds `final_logits_bias`, a [1, vocab] buffer.
#include <cmath>

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
    setHeadDims(spec, file, "d_model", side + "attention_heads");
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

std::vector<TensorEntry> stackEntries(const std::string& stack) {
    using enum Role;
    std::vector<TensorEntry> e = {{TokenEmbedding, "shared.weight", Layout::Plain}};
    e.push_back(
        {PositionEmbedding, keptName(stack + ".embed_positions.weight"), Layout::Plain, learned});
    addNorm(e, EmbeddingNormWeight, EmbeddingNormBias, stack + ".layernorm_embedding",
            embeddingNorm);
    const std::string layer = stack + ".layers.{}.";
    addAttention(e, layer,
                 {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.out_proj",
                  "self_attn_layer_norm"});
    if (stack == "decoder") {
        addAttention(e, layer,
                     {"encoder_attn.q_proj", "encoder_attn.k_proj", "encoder_attn.v_proj",
                      "encoder_attn.out_proj", "encoder_attn_layer_norm"},
                     true);
    }
    addFeedForward(e, layer, {"fc1", "fc2", "final_layer_norm"});
    addNorm(e, FinalNormWeight, FinalNormBias, stack + ".layer_norm", finalNorm);
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

// The decoder stack's table holds the LM head; the encoder's (the one arch_table.cpp lists)
// points to its decoder's.
template <Variant V>
ArchTable decoderTable(const char* modelType) {
    ArchTable t{
        modelType, {"model."}, stackEntries("decoder"), kDecoderIgnored, readConfig<V, true>};
    t.prediction = kLmHead;
    return t;
}

template <Variant V>
ArchTable encoderTable(const char* modelType, const ArchTable& decoder) {
    ArchTable t{
        modelType, {"model."}, stackEntries("encoder"), kEncoderIgnored, readConfig<V, false>};
    t.decoder = &decoder;
    return t;
}

const ArchTable kBartDecoder = decoderTable<Variant::Bart>("bart");
const ArchTable kMBartDecoder = decoderTable<Variant::MBart>("mbart");
const ArchTable kMarianDecoder = decoderTable<Variant::Marian>("marian");

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

const ArchTable kBart = encoderTable<Variant::Bart>("bart", kBartDecoder);
const ArchTable kMBart = encoderTable<Variant::MBart>("mbart", kMBartDecoder);
const ArchTable kMarian = encoderTable<Variant::Marian>("marian", kMarianDecoder);

}  // namespace attnscope::model::arch
