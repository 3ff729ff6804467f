// Qwen3 and OLMo-2: Llama-family decoders with QK-norm (methods.md §13). Qwen3 normalizes each
// head's query and key (over head_dim, weight w) before RoPE; OLMo-2 normalizes the whole
// projected query and key (over all heads) and has no pre-norms: its two norms sit on each
// sublayer's output, before the residual add.
#include "bert_family.h"

namespace attnscope::model::arch {

namespace {

ModelSpec readQwen3Config(const io::JsonFile& config) {
    ModelSpec spec = readLlamaFamilyConfig(config);
    spec.qkNorm = QkNorm::PerHead;
    spec.ffnBias = false;
    readQwenWindow(config, spec);
    return spec;
}

ModelSpec readOlmo2Config(const io::JsonFile& config) {
    ModelSpec spec = readLlamaFamilyConfig(config);
    spec.qkNorm = QkNorm::Whole;
    spec.normPlacement = NormPlacement::Output;
    spec.ffnBias = false;
    return spec;
}

}  // namespace

const ArchTable kQwen3 = {
    "qwen3",        {"model."},      llamaTensorEntries(NormPlacement::Pre, true),
    llamaIgnored(), readQwen3Config, causalLmHead()};

const ArchTable kOlmo2 = {
    "olmo2",        {"model."},      llamaTensorEntries(NormPlacement::Output, true),
    llamaIgnored(), readOlmo2Config, causalLmHead()};

}  // namespace attnscope::model::arch
