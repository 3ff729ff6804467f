// GPT-2: pre-norm causal decoder with a final LayerNorm. Its Conv1D layers store weights as
// [in, out], and c_attn fuses query|key|value along the output axis.
#include <cstdint>

#include "attnscope/base/error.h"
#include "bert_family.h"

namespace attnscope::model::arch {

namespace {

// A Conv1D layer under `base`: its weight stored [in, out], and its bias.
void addConv1D(std::vector<TensorEntry>& e, Role weight, Role bias, const std::string& base) {
    addLinear(e, weight, bias, base, nullptr, Layout::Conv1DInOut);
}

std::vector<TensorEntry> gpt2Entries() {
    using enum Role;
    std::vector<TensorEntry> e = {
        {TokenEmbedding, "wte.weight", Layout::Plain},
        {PositionEmbedding, "wpe.weight", Layout::Plain},
    };
    const std::string layer = "h.{}.";
    addNorm(e, AttnNormWeight, AttnNormBias, layer + "ln_1");
    addConv1D(e, QkvWeight, QkvBias, layer + "attn.c_attn");
    addConv1D(e, OutputWeight, OutputBias, layer + "attn.c_proj");
    addNorm(e, FfnNormWeight, FfnNormBias, layer + "ln_2");
    addConv1D(e, FfnUpWeight, FfnUpBias, layer + "mlp.c_fc");
    addConv1D(e, FfnDownWeight, FfnDownBias, layer + "mlp.c_proj");
    addNorm(e, FinalNormWeight, FinalNormBias, "ln_f");
    return e;
}

ModelSpec readGpt2Config(const io::JsonFile& config) {
    const std::string& file = config.fileName();
    ModelSpec spec;
    spec.modelType = "gpt2";
    spec.dModel = config.positiveInt("n_embd");
    spec.nHeads = config.positiveInt("n_head");
    spec.nLayers = config.positiveInt("n_layer");
    if (config.has("n_inner")) {
        spec.dFfn = config.positiveInt("n_inner");
    } else if (std::int64_t{4} * spec.dModel <= kMaxModelWidth) {
        spec.dFfn = 4 * spec.dModel;
    } else {
        // 4 × n_embd would overflow int (or pass as a size no model has); name the key.
        throw FormatError(file + ": n_embd: " + std::to_string(spec.dModel) +
                          " is too large: without n_inner the feed-forward size is 4 × n_embd = " +
                          std::to_string(std::int64_t{4} * spec.dModel) + ", at most " +
                          std::to_string(kMaxModelWidth) + " (2^24) is supported");
    }
    spec.vocabSize = config.positiveInt("vocab_size");
    spec.maxPositions = config.positiveIntOf({"n_positions", "n_ctx"});
    spec.typeVocabSize = 0;
    spec.normEps = static_cast<float>(config.number("layer_norm_epsilon", 1e-5));
    spec.activation = parseActivation(config.string("activation_function", "gelu_new"), file,
                                      "activation_function");
    setHeadDims(spec, file, "n_embd", "n_head");
    spec.normPlacement = NormPlacement::Pre;
    spec.embeddingNorm = false;
    spec.finalNorm = true;
    spec.defaultMask = DefaultMask::Causal;
    spec.scaleAttention = config.boolean("scale_attn_weights", true);
    spec.scaleByInverseLayer = config.boolean("scale_attn_by_inverse_layer_idx", false);
    spec.tieWordEmbeddings = config.boolean("tie_word_embeddings", true);
    return spec;
}

}  // namespace

const ArchTable kGpt2 = {
    "gpt2",
    {"transformer."},
    gpt2Entries(),
    // attn.bias / attn.masked_bias are causal-mask buffers older versions saved.
    {"lm_head.", "score.", "h.{}.attn.bias", "h.{}.attn.masked_bias"},
    readGpt2Config,
    {PredictionKind::CausalLm, {}, "lm_head.weight", nullptr},
};

}  // namespace attnscope::model::arch
