// Phi-3: a Llama-family decoder whose query, key and value projections are one qkv_proj
// (rows: all query heads, then key heads, then value heads) and whose gate and up projections
// are one gate_up_proj (gate first), with a sliding window in every layer and LongRoPE
// (methods.md §13; transformers' modeling_phi3).
#include "attnscope/base/error.h"
#include "bert_family.h"

namespace attnscope::model::arch {

namespace {

std::vector<TensorEntry> phi3Entries() {
    using enum Role;
    const auto none = [](const ModelSpec&) { return false; };
    std::vector<TensorEntry> e = {
        {TokenEmbedding, "embed_tokens.weight", Layout::Plain},
        {AttnNormWeight, "layers.{}.input_layernorm.weight", Layout::Plain},
    };
    addLinear(e, QkvWeight, QkvBias, "layers.{}.self_attn.qkv_proj", none);
    addLinear(e, OutputWeight, OutputBias, "layers.{}.self_attn.o_proj", none);
    e.push_back({FfnNormWeight, "layers.{}.post_attention_layernorm.weight", Layout::Plain});
    addLinear(e, FfnGateUpWeight, FfnGateUpBias, "layers.{}.mlp.gate_up_proj", none);
    addLinear(e, FfnDownWeight, FfnDownBias, "layers.{}.mlp.down_proj", none);
    e.push_back({FinalNormWeight, "norm.weight", Layout::Plain});
    return e;
}

ModelSpec readPhi3Config(const io::JsonFile& config) {
    ModelSpec spec = readLlamaFamilyConfig(config);
    spec.qkvBias = spec.outputBias = spec.ffnBias = false;
    // Phi3Config's sliding_window applies to every layer; null switches it off.
    if (config.has("sliding_window")) {
        spec.slidingWindow = config.positiveInt("sliding_window");
    }
    return spec;
}

const std::vector<const char*> kIgnored = {"layers.{}.self_attn.rotary_emb.", "rotary_emb."};

}  // namespace

const ArchTable kPhi3 = {"phi3",         {"model."},
                         phi3Entries(),  kIgnored,
                         readPhi3Config, {PredictionKind::CausalLm, {}, "lm_head.weight", nullptr}};

}  // namespace attnscope::model::arch
