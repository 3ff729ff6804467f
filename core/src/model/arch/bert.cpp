// BERT (BertModel, BertForMaskedLM, ...): post-norm encoder, learned absolute positions,
// token-type embeddings. ELECTRA discriminators share this layout when embedding_size equals
// hidden_size.
#include "attnscope/base/error.h"
#include "bert_family.h"

namespace attnscope::model::arch {

std::vector<TensorEntry> bertTensorEntries() {
    using enum Role;
    std::vector<TensorEntry> e = {
        {TokenEmbedding, "embeddings.word_embeddings.weight", Layout::Plain},
        {PositionEmbedding, "embeddings.position_embeddings.weight", Layout::Plain},
        {TokenTypeEmbedding, "embeddings.token_type_embeddings.weight", Layout::Plain},
    };
    addNorm(e, EmbeddingNormWeight, EmbeddingNormBias, "embeddings.LayerNorm");
    const std::string layer = "encoder.layer.{}.";
    addAttention(e, layer,
                 {"attention.self.query", "attention.self.key", "attention.self.value",
                  "attention.output.dense", "attention.output.LayerNorm"});
    addFeedForward(e, layer, {"intermediate.dense", "output.dense", "output.LayerNorm"});
    return e;
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
    readSizes(config,
              {"hidden_size", "num_attention_heads", "num_hidden_layers", "intermediate_size"},
              spec);
    spec.maxPositions =
        config.has("max_position_embeddings") ? config.positiveInt("max_position_embeddings") : 512;
    spec.typeVocabSize = config.has("type_vocab_size") ? config.positiveInt("type_vocab_size") : 2;
    spec.padTokenId = config.optionalInt("pad_token_id");
    spec.normEps = static_cast<float>(config.number("layer_norm_eps", 1e-12));
    spec.activation = parseActivation(config.string("hidden_act", "gelu"), file, "hidden_act");
    setHeadDims(spec, file, "hidden_size", "num_attention_heads");
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
    maskedLmHead("cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm",
                 "cls.predictions.decoder.weight", "cls.predictions.bias"),
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
