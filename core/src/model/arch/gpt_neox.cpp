// GPT-NeoX (Pythia): pre-norm LayerNorm decoder with rotary positions on the first
// rotary_pct of each head, a fused query_key_value laid out head by head ([q | k | v] of head
// 0, then of head 1, ...), a parallel residual (x + attn(ln1(x)) + mlp(ln2(x))) unless
// use_parallel_residual is false, and an untied embed_out (methods.md §13).
#include "attnscope/base/error.h"
#include "bert_family.h"

namespace attnscope::model::arch {

namespace {

std::vector<TensorEntry> gptNeoxEntries() {
    using enum Role;
    std::vector<TensorEntry> e = {{TokenEmbedding, "embed_in.weight", Layout::Plain}};
    const std::string layer = "layers.{}.";
    addNorm(e, AttnNormWeight, AttnNormBias, layer + "input_layernorm");
    addLinear(e, QkvWeight, QkvBias, layer + "attention.query_key_value");
    addLinear(e, OutputWeight, OutputBias, layer + "attention.dense");
    addNorm(e, FfnNormWeight, FfnNormBias, layer + "post_attention_layernorm");
    addLinear(e, FfnUpWeight, FfnUpBias, layer + "mlp.dense_h_to_4h");
    addLinear(e, FfnDownWeight, FfnDownBias, layer + "mlp.dense_4h_to_h");
    addNorm(e, FinalNormWeight, FinalNormBias, "final_layer_norm");
    return e;
}

ModelSpec readGptNeoxConfig(const io::JsonFile& config) {
    const std::string& file = config.fileName();
    ModelSpec spec;
    spec.modelType = "gpt_neox";
    readSizes(config,
              {"hidden_size", "num_attention_heads", "num_hidden_layers", "intermediate_size"},
              spec);
    setHeadDims(spec, file, "hidden_size", "num_attention_heads");
    spec.nKvHeads = spec.nHeads;
    spec.maxPositions = config.optionalInt("max_position_embeddings").value_or(2048);
    spec.typeVocabSize = 0;
    spec.normEps = static_cast<float>(config.number("layer_norm_eps", 1e-5));
    spec.activation = parseActivation(config.string("hidden_act", "gelu"), file, "hidden_act");
    spec.normPlacement = NormPlacement::Pre;
    spec.embeddingNorm = false;
    spec.finalNorm = true;
    spec.learnedPositions = false;
    spec.defaultMask = DefaultMask::Causal;
    spec.parallelResidual = config.boolean("use_parallel_residual", true);
    spec.qkvPerHead = true;
    spec.tieWordEmbeddings = config.boolean("tie_word_embeddings", false);
    // rotary_pct / rotary_emb_base (newer configs: partial_rotary_factor / rope_theta).
    const double partial =
        config.number("rotary_pct", config.number("partial_rotary_factor", 0.25));
    spec.rope.theta = config.number("rotary_emb_base", config.number("rope_theta", 10000.0));
    if (!(partial > 0.0 && partial <= 1.0) || !(spec.rope.theta > 0.0)) {
        throw FormatError(file + ": rotary_pct must be in (0, 1] and rotary_emb_base positive");
    }
    spec.rope.dims = static_cast<int>(spec.headDimK * partial);
    return spec;
}

}  // namespace

const ArchTable kGptNeox = {
    "gpt_neox",
    {"gpt_neox."},
    gptNeoxEntries(),
    // Causal-mask and rotary buffers older versions saved.
    {"layers.{}.attention.bias", "layers.{}.attention.masked_bias",
     "layers.{}.attention.rotary_emb.", "rotary_emb."},
    readGptNeoxConfig,
    {PredictionKind::CausalLm, {}, "embed_out.weight", nullptr},
};

}  // namespace attnscope::model::arch
