// DistilBERT: BERT's post-norm encoder without token types, with its own names and config keys
// (dim, n_heads, hidden_dim). Sinusoidal position tables are saved as ordinary weights.
#include "attnscope/base/error.h"
#include "bert_family.h"

namespace attnscope::model::arch {

namespace {

std::vector<TensorEntry> distilBertEntries() {
    using enum Role;
    using enum Layout;
    return {
        {TokenEmbedding, "embeddings.word_embeddings.weight", Plain},
        {PositionEmbedding, "embeddings.position_embeddings.weight", Plain},
        {EmbeddingNormWeight, "embeddings.LayerNorm.weight", Plain},
        {EmbeddingNormBias, "embeddings.LayerNorm.bias", Plain},
        {QueryWeight, "transformer.layer.{}.attention.q_lin.weight", LinearOutIn},
        {QueryBias, "transformer.layer.{}.attention.q_lin.bias", Plain},
        {KeyWeight, "transformer.layer.{}.attention.k_lin.weight", LinearOutIn},
        {KeyBias, "transformer.layer.{}.attention.k_lin.bias", Plain},
        {ValueWeight, "transformer.layer.{}.attention.v_lin.weight", LinearOutIn},
        {ValueBias, "transformer.layer.{}.attention.v_lin.bias", Plain},
        {OutputWeight, "transformer.layer.{}.attention.out_lin.weight", LinearOutIn},
        {OutputBias, "transformer.layer.{}.attention.out_lin.bias", Plain},
        {AttnNormWeight, "transformer.layer.{}.sa_layer_norm.weight", Plain},
        {AttnNormBias, "transformer.layer.{}.sa_layer_norm.bias", Plain},
        {FfnUpWeight, "transformer.layer.{}.ffn.lin1.weight", LinearOutIn},
        {FfnUpBias, "transformer.layer.{}.ffn.lin1.bias", Plain},
        {FfnDownWeight, "transformer.layer.{}.ffn.lin2.weight", LinearOutIn},
        {FfnDownBias, "transformer.layer.{}.ffn.lin2.bias", Plain},
        {FfnNormWeight, "transformer.layer.{}.output_layer_norm.weight", Plain},
        {FfnNormBias, "transformer.layer.{}.output_layer_norm.bias", Plain},
    };
}

ModelSpec readDistilBertConfig(const io::JsonFile& config) {
    const std::string& file = config.fileName();
    ModelSpec spec;
    spec.modelType = "distilbert";
    spec.dModel = config.positiveInt("dim");
    spec.nHeads = config.positiveInt("n_heads");
    spec.nLayers = config.positiveInt("n_layers");
    spec.dFfn = config.positiveInt("hidden_dim");
    spec.vocabSize = config.positiveInt("vocab_size");
    spec.maxPositions =
        config.has("max_position_embeddings") ? config.positiveInt("max_position_embeddings") : 512;
    spec.typeVocabSize = 0;
    spec.padTokenId = config.optionalInt("pad_token_id");
    spec.normEps = 1e-12f;  // fixed in HF's DistilBERT, not configurable
    spec.activation = parseActivation(config.string("activation", "gelu"), file, "activation");
    if (spec.dModel % spec.nHeads != 0) {
        throw FormatError(file + ": dim (" + std::to_string(spec.dModel) +
                          ") is not divisible by n_heads (" + std::to_string(spec.nHeads) + ")");
    }
    spec.headDimK = spec.headDimV = spec.dModel / spec.nHeads;
    spec.normPlacement = NormPlacement::Post;
    spec.embeddingNorm = true;
    spec.headActivation = spec.activation;
    return spec;
}

}  // namespace

const ArchTable kDistilBert = {
    "distilbert",
    {"distilbert."},
    distilBertEntries(),
    {"vocab_transform.", "vocab_layer_norm.", "vocab_projector.", "pre_classifier.", "classifier.",
     "qa_outputs.", "embeddings.position_ids"},
    readDistilBertConfig,
    {PredictionKind::MaskedLm,
     {{Role::HeadTransformWeight, "vocab_transform.weight", Layout::LinearOutIn},
      {Role::HeadTransformBias, "vocab_transform.bias", Layout::Plain},
      {Role::HeadNormWeight, "vocab_layer_norm.weight", Layout::Plain},
      {Role::HeadNormBias, "vocab_layer_norm.bias", Layout::Plain}},
     "vocab_projector.weight",
     "vocab_projector.bias"},
};

}  // namespace attnscope::model::arch
