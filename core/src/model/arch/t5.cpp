// T5 (v1.0, v1.1, flan-t5): pre-norm encoder and decoder stacks with T5's RMS norm (no mean,
// no bias), no biases anywhere, a relative position bias per head learned in the first layer
// of each stack and added to every layer's logits, and no 1/sqrt(d) scale (T5 folds it into the
// initialisation of the query weights). A tied LM head sees the decoder's output times
// d_model^-0.5. The two stacks share the token embedding `shared.weight`.
#include <cmath>

#include "attnscope/base/error.h"
#include "bert_family.h"

namespace attnscope::model::arch {

namespace {

bool gated(const ModelSpec& s) {
    return s.ffnKind == FfnKind::Gated;
}

bool plain(const ModelSpec& s) {
    return s.ffnKind == FfnKind::Plain;
}

// feed_forward_proj: "relu", "gelu", "gated-gelu" (gelu_new, as T5 v1.1 does), "gated-silu".
void readFeedForward(const io::JsonFile& config, ModelSpec& spec) {
    std::string act = config.string("feed_forward_proj", "relu");
    spec.ffnKind = FfnKind::Plain;
    if (act.starts_with("gated-")) {
        spec.ffnKind = FfnKind::Gated;
        act = act.substr(6);
    }
    // T5Config turns "gated-gelu" into gelu_new, for backwards compatibility.
    if (spec.ffnKind == FfnKind::Gated && act == "gelu") {
        act = "gelu_new";
    }
    spec.activation = parseActivation(act, config.fileName(), "feed_forward_proj");
}

ModelSpec readT5Stack(const io::JsonFile& config, bool decoder) {
    ModelSpec spec;
    spec.modelType = "t5";
    spec.dModel = config.positiveInt("d_model");
    spec.nHeads = config.positiveInt("num_heads");
    spec.headDimK = spec.headDimV = config.positiveInt("d_kv");
    spec.dFfn = config.positiveInt("d_ff");
    spec.nLayers = config.positiveInt("num_layers");
    if (decoder && config.has("num_decoder_layers")) {
        spec.nLayers = config.positiveInt("num_decoder_layers");
    }
    spec.vocabSize = config.positiveInt("vocab_size");
    // Relative positions work at any length; n_positions is the length T5 was trained for.
    spec.maxPositions = config.has("n_positions") ? config.positiveInt("n_positions") : 512;
    spec.learnedPositions = false;
    spec.relativeBuckets = config.positiveInt("relative_attention_num_buckets");
    spec.relativeMaxDistance = config.has("relative_attention_max_distance")
                                   ? config.positiveInt("relative_attention_max_distance")
                                   : 128;
    spec.relativeBidirectional = !decoder;
    spec.typeVocabSize = 0;
    spec.padTokenId = config.optionalInt("pad_token_id");
    spec.normEps = static_cast<float>(config.number("layer_norm_epsilon", 1e-6));
    spec.normKind = NormKind::RmsNorm;
    spec.normPlacement = NormPlacement::Pre;
    spec.embeddingNorm = false;
    spec.finalNorm = true;
    spec.scaleAttention = false;
    spec.qkvBias = spec.outputBias = spec.ffnBias = false;
    spec.tieWordEmbeddings = config.boolean("tie_word_embeddings", true);
    spec.defaultMask = decoder ? DefaultMask::Causal : DefaultMask::Bidirectional;
    spec.crossAttention = decoder;
    spec.baseModelOnly = namesOnlyBaseModel(config);
    spec.eosTokenId = config.optionalInt("eos_token_id");
    spec.decoderStartTokenId =
        config.optionalInt("decoder_start_token_id").value_or(spec.padTokenId.value_or(0));
    if (decoder && spec.tieWordEmbeddings) {
        spec.predictionScale = 1.0f / std::sqrt(static_cast<float>(spec.dModel));
    }
    readFeedForward(config, spec);
    return spec;
}

ModelSpec readT5Encoder(const io::JsonFile& config) {
    return readT5Stack(config, false);
}

ModelSpec readT5Decoder(const io::JsonFile& config) {
    return readT5Stack(config, true);
}

// The self-attention and FFN entries of one stack; `ffnSub` is the FFN's sub-layer index (1 in
// the encoder, 2 in the decoder, whose sub-layer 1 is cross-attention).
std::vector<TensorEntry> stackEntries(const std::string& stack, int ffnSub) {
    using enum Role;
    using enum Layout;
    const std::string block = stack + ".block.{}.layer.";
    const std::string ffn = block + std::to_string(ffnSub) + ".";
    return {
        {TokenEmbedding, "shared.weight", Plain},
        {RelativeBias,
         keptName(stack + ".block.0.layer.0.SelfAttention.relative_attention_bias.weight"), Plain},
        {AttnNormWeight, keptName(block + "0.layer_norm.weight"), Plain},
        {QueryWeight, keptName(block + "0.SelfAttention.q.weight"), LinearOutIn},
        {KeyWeight, keptName(block + "0.SelfAttention.k.weight"), LinearOutIn},
        {ValueWeight, keptName(block + "0.SelfAttention.v.weight"), LinearOutIn},
        {OutputWeight, keptName(block + "0.SelfAttention.o.weight"), LinearOutIn},
        {FfnNormWeight, keptName(ffn + "layer_norm.weight"), Plain},
        {FfnUpWeight, keptName(ffn + "DenseReluDense.wi.weight"), LinearOutIn, plain},
        {FfnGateWeight, keptName(ffn + "DenseReluDense.wi_0.weight"), LinearOutIn, gated},
        {FfnUpWeight, keptName(ffn + "DenseReluDense.wi_1.weight"), LinearOutIn, gated},
        {FfnDownWeight, keptName(ffn + "DenseReluDense.wo.weight"), LinearOutIn},
        {FinalNormWeight, keptName(stack + ".final_layer_norm.weight"), Plain},
    };
}

std::vector<TensorEntry> decoderEntries() {
    using enum Role;
    using enum Layout;
    std::vector<TensorEntry> e = stackEntries("decoder", 2);
    const std::vector<TensorEntry> cross = {
        {CrossNormWeight, "decoder.block.{}.layer.1.layer_norm.weight", Plain},
        {CrossQueryWeight, "decoder.block.{}.layer.1.EncDecAttention.q.weight", LinearOutIn},
        {CrossKeyWeight, "decoder.block.{}.layer.1.EncDecAttention.k.weight", LinearOutIn},
        {CrossValueWeight, "decoder.block.{}.layer.1.EncDecAttention.v.weight", LinearOutIn},
        {CrossOutputWeight, "decoder.block.{}.layer.1.EncDecAttention.o.weight", LinearOutIn},
    };
    e.insert(e.end(), cross.begin(), cross.end());
    return e;
}

// Older checkpoints also store the stacks' own (tied) copies of the embedding. Real T5
// checkpoints also hold a relative position bias on the decoder's first cross-attention, which
// T5 never uses (cross-attention has no position bias); transformers ignores it on load too
// (T5ForConditionalGeneration's _keys_to_ignore_on_load_unexpected).
const ArchTable kT5Decoder = {
    "t5",
    {},
    decoderEntries(),
    {"encoder.", "decoder.embed_tokens.",
     "decoder.block.0.layer.1.EncDecAttention.relative_attention_bias."},
    readT5Decoder,
    {PredictionKind::CausalLm, {}, "lm_head.weight", nullptr},
};

}  // namespace

const ArchTable kT5 = {
    "t5",
    {},
    stackEntries("encoder", 1),
    {"decoder.", "lm_head.", "encoder.embed_tokens."},
    readT5Encoder,
    {},
    &kT5Decoder,
};

}  // namespace attnscope::model::arch
