// DistilBERT: BERT's post-norm encoder without token types, with its own names and config keys
// (dim, n_heads, hidden_dim). Sinusoidal position tables are saved as ordinary weights.
#include "attnscope/base/error.h"
#include "bert_family.h"

namespace attnscope::model::arch {

namespace {

std::vector<TensorEntry> distilBertEntries() {
    using enum Role;
    std::vector<TensorEntry> e = {
        {TokenEmbedding, "embeddings.word_embeddings.weight", Layout::Plain},
        {PositionEmbedding, "embeddings.position_embeddings.weight", Layout::Plain},
    };
    addNorm(e, EmbeddingNormWeight, EmbeddingNormBias, "embeddings.LayerNorm");
    const std::string layer = "transformer.layer.{}.";
    addAttention(e, layer,
                 {"attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin",
                  "sa_layer_norm"});
    addFeedForward(e, layer, {"ffn.lin1", "ffn.lin2", "output_layer_norm"});
    return e;
}

ModelSpec readDistilBertConfig(const io::JsonFile& config) {
    const std::string& file = config.fileName();
    ModelSpec spec;
    spec.modelType = "distilbert";
    readSizes(config, {"dim", "n_heads", "n_layers", "hidden_dim"}, spec);
    spec.maxPositions =
        config.has("max_position_embeddings") ? config.positiveInt("max_position_embeddings") : 512;
    spec.typeVocabSize = 0;
    spec.padTokenId = config.optionalInt("pad_token_id");
    spec.normEps = 1e-12f;  // fixed in HF's DistilBERT, not configurable
    spec.activation = parseActivation(config.string("activation", "gelu"), file, "activation");
    setHeadDims(spec, file, "dim", "n_heads");
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
    maskedLmHead("vocab_transform", "vocab_layer_norm", "vocab_projector.weight",
                 "vocab_projector.bias"),
};

}  // namespace attnscope::model::arch
