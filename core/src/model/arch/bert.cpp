// BERT (BertModel, BertForMaskedLM, ...): post-norm encoder, learned absolute positions,
// token-type embeddings. ELECTRA discriminators share this layout when embedding_size equals
// hidden_size.
#include "attnscope/base/error.h"
#include "bert_family.h"

namespace attnscope::model::arch {

std::vector<TensorEntry> bertTensorEntries() {
    using enum Role;
    using enum Layout;
    return {
        {TokenEmbedding, "embeddings.word_embeddings.weight", Plain},
        {PositionEmbedding, "embeddings.position_embeddings.weight", Plain},
        {TokenTypeEmbedding, "embeddings.token_type_embeddings.weight", Plain},
        {EmbeddingNormWeight, "embeddings.LayerNorm.weight", Plain},
        {EmbeddingNormBias, "embeddings.LayerNorm.bias", Plain},
        {QueryWeight, "encoder.layer.{}.attention.self.query.weight", LinearOutIn},
        {QueryBias, "encoder.layer.{}.attention.self.query.bias", Plain},
        {KeyWeight, "encoder.layer.{}.attention.self.key.weight", LinearOutIn},
        {KeyBias, "encoder.layer.{}.attention.self.key.bias", Plain},
        {ValueWeight, "encoder.layer.{}.attention.self.value.weight", LinearOutIn},
        {ValueBias, "encoder.layer.{}.attention.self.value.bias", Plain},
        {OutputWeight, "encoder.layer.{}.attention.output.dense.weight", LinearOutIn},
        {OutputBias, "encoder.layer.{}.attention.output.dense.bias", Plain},
        {AttnNormWeight, "encoder.layer.{}.attention.output.LayerNorm.weight", Plain},
        {AttnNormBias, "encoder.layer.{}.attention.output.LayerNorm.bias", Plain},
        {FfnUpWeight, "encoder.layer.{}.intermediate.dense.weight", LinearOutIn},
        {FfnUpBias, "encoder.layer.{}.intermediate.dense.bias", Plain},
        {FfnDownWeight, "encoder.layer.{}.output.dense.weight", LinearOutIn},
        {FfnDownBias, "encoder.layer.{}.output.dense.bias", Plain},
        {FfnNormWeight, "encoder.layer.{}.output.LayerNorm.weight", Plain},
        {FfnNormBias, "encoder.layer.{}.output.LayerNorm.bias", Plain},
    };
}

ModelSpec readBertConfig(const io::JsonFile& config) {
    const std::string& file = config.fileName();
    const std::string positionType = config.string("position_embedding_type", "absolute");
    if (positionType != "absolute") {
        throw UnsupportedModel(file + ": position_embedding_type: '" + positionType +
                               "' is not supported (only absolute positions)");
    }
    if (config.has("embedding_size") &&
        config.positiveInt("embedding_size") != config.positiveInt("hidden_size")) {
        throw UnsupportedModel(file +
                               ": embedding_size: differs from hidden_size; projected "
                               "embeddings (ELECTRA generators, ALBERT) are not supported");
    }
    ModelSpec spec;
    spec.modelType = config.string("model_type", "");
    spec.dModel = config.positiveInt("hidden_size");
    spec.nHeads = config.positiveInt("num_attention_heads");
    spec.nLayers = config.positiveInt("num_hidden_layers");
    spec.dFfn = config.positiveInt("intermediate_size");
    spec.vocabSize = config.positiveInt("vocab_size");
    spec.maxPositions =
        config.has("max_position_embeddings") ? config.positiveInt("max_position_embeddings") : 512;
    spec.typeVocabSize = config.has("type_vocab_size") ? config.positiveInt("type_vocab_size") : 2;
    spec.padTokenId = config.optionalInt("pad_token_id");
    spec.normEps = static_cast<float>(config.number("layer_norm_eps", 1e-12));
    spec.activation = parseActivation(config.string("hidden_act", "gelu"), file, "hidden_act");
    if (spec.dModel % spec.nHeads != 0) {
        throw FormatError(file + ": hidden_size (" + std::to_string(spec.dModel) +
                          ") is not divisible by num_attention_heads (" +
                          std::to_string(spec.nHeads) + ")");
    }
    spec.headDimK = spec.headDimV = spec.dModel / spec.nHeads;
    spec.normPlacement = NormPlacement::Post;
    spec.embeddingNorm = true;
    spec.defaultMask = DefaultMask::Bidirectional;
    spec.headActivation = spec.activation;  // BertPredictionHeadTransform uses hidden_act
    spec.tieWordEmbeddings = config.boolean("tie_word_embeddings", true);
    return spec;
}

const ArchTable kBert = {
    "bert",
    {"bert."},
    bertTensorEntries(),
    {"cls.", "pooler.", "embeddings.position_ids", "classifier.", "qa_outputs."},
    readBertConfig,
    {PredictionKind::MaskedLm,
     {{Role::HeadTransformWeight, "cls.predictions.transform.dense.weight", Layout::LinearOutIn},
      {Role::HeadTransformBias, "cls.predictions.transform.dense.bias", Layout::Plain},
      {Role::HeadNormWeight, "cls.predictions.transform.LayerNorm.weight", Layout::Plain},
      {Role::HeadNormBias, "cls.predictions.transform.LayerNorm.bias", Layout::Plain}},
     "cls.predictions.decoder.weight",
     "cls.predictions.bias"},
};

const ArchTable kElectra = {
    "electra",
    {"electra."},
    bertTensorEntries(),
    {"discriminator_predictions.", "generator_predictions.", "generator_lm_head.",
     "embeddings.position_ids", "classifier."},
    readBertConfig,
};

}  // namespace attnscope::model::arch
