// RoBERTa: BERT's layout and config keys, but positions count from pad_token_id + 1 and pad
// tokens keep the pad position (HF's create_position_ids_from_input_ids).
#include "bert_family.h"

namespace attnscope::model::arch {

namespace {

ModelSpec readRobertaConfig(const io::JsonFile& config) {
    ModelSpec spec = readBertConfig(config);
    spec.typeVocabSize = config.has("type_vocab_size") ? config.positiveInt("type_vocab_size") : 1;
    spec.normEps = static_cast<float>(config.number("layer_norm_eps", 1e-5));
    spec.padTokenId = config.optionalInt("pad_token_id").value_or(1);
    spec.positions = PositionScheme::SkipPadTokens;
    spec.headActivation = Activation::Gelu;  // RobertaLMHead calls gelu whatever hidden_act is
    return spec;
}

}  // namespace

const ArchTable kRoberta = {
    "roberta",
    {"roberta."},
    bertTensorEntries(),
    {"lm_head.", "pooler.", "embeddings.position_ids", "classifier."},
    readRobertaConfig,
    maskedLmHead("lm_head.dense", "lm_head.layer_norm", "lm_head.decoder.weight", "lm_head.bias"),
};

}  // namespace attnscope::model::arch
