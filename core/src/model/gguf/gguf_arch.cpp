#include "gguf_arch.h"

#include <cstdint>

#include "../arch/bert_family.h"
#include "attnscope/base/error.h"

namespace attnscope::model {

namespace gguf {

namespace {

// The Llama table's name prefixes and their GGUF spelling (gguf-py's tensor_mapping.py).
constexpr GgufName kLlamaNames[] = {
    {"embed_tokens.weight", "token_embd.weight"},
    {"layers.{}.input_layernorm.", "blk.{}.attn_norm."},
    {"layers.{}.self_attn.q_proj.", "blk.{}.attn_q."},
    {"layers.{}.self_attn.k_proj.", "blk.{}.attn_k."},
    {"layers.{}.self_attn.v_proj.", "blk.{}.attn_v."},
    {"layers.{}.self_attn.o_proj.", "blk.{}.attn_output."},
    {"layers.{}.post_attention_layernorm.", "blk.{}.ffn_norm."},
    {"layers.{}.mlp.gate_proj.", "blk.{}.ffn_gate."},
    {"layers.{}.mlp.up_proj.", "blk.{}.ffn_up."},
    {"layers.{}.mlp.down_proj.", "blk.{}.ffn_down."},
    {"norm.weight", "output_norm.weight"},
};

void readRopeScaling(const io::GgufFile& f, const std::string& arch, ModelSpec& spec) {
    const std::string typeKey = arch + ".rope.scaling.type";
    const std::string type(f.stringAt(typeKey).value_or("none"));
    if (type == "linear") {
        spec.rope.scaling = RopeScaling::Linear;
        spec.rope.factor = positiveNumber(f, arch + ".rope.scaling.factor", 1.0);
    } else if (type != "none") {
        throw UnsupportedModel(f.where(typeKey) + ": rope scaling '" + clipped(type) +
                               "' is not supported (supported: none, linear, and Llama 3's "
                               "rope_freqs)");
    }
}

// llama and qwen2 (llama.cpp's LLM_ARCH_LLAMA / LLM_ARCH_QWEN2): sizes from the keys, head
// sizes from key_length/value_length or the width over the heads, the vocabulary from the
// token embedding, biases and the untied head from which tensors exist. Defaults where a key
// is absent are llama.cpp's: head_count_kv = head_count, rope.freq_base 10000,
// rope.dimension_count = the head size; layer_norm_rms_epsilon is required, as there.
ModelSpec readLlamaSpec(const io::GgufFile& f, const GgufArch& arch) {
    const std::string a = arch.name;
    ModelSpec spec;
    readBlockShape(f, a, spec);
    spec.rope.dims = metadataSize(f, a + ".rope.dimension_count", spec.headDimK);
    spec.rope.theta = positiveNumber(f, a + ".rope.freq_base", 10000.0);
    readRopeScaling(f, a, spec);
    spec.normEps = requiredEpsilon(f, a + ".attention.layer_norm_rms_epsilon");
    spec.vocabSize = embeddingRows(f);
    spec.activation = Activation::Silu;
    arch::setLlamaFamilyFlags(spec);
    spec.qkvBias = f.tensor("blk.0.attn_q.bias") != nullptr;
    spec.outputBias = f.tensor("blk.0.attn_output.bias") != nullptr;
    spec.ffnBias = f.tensor("blk.0.ffn_up.bias") != nullptr;
    spec.tieWordEmbeddings = f.tensor(kOutputTensor) == nullptr;
    return spec;
}

constexpr GgufArch kLlamaArch = {"llama",       &arch::kLlama, true,
                                 readLlamaSpec, kLlamaNames,   PredictionKind::CausalLm};
constexpr GgufArch kQwen2Arch = {"qwen2",       &arch::kQwen2, false,
                                 readLlamaSpec, kLlamaNames,   PredictionKind::CausalLm};

// In the order refusals list them.
const GgufArch* const kArchs[] = {&kLlamaArch, &kQwen2Arch, &kGpt2Arch, &kBertArch};

}  // namespace

const GgufArch& ggufArchFor(const io::GgufFile& file) {
    const std::optional<std::string_view> name = file.stringAt("general.architecture");
    if (!name) {
        throw FormatError(file.where("general.architecture") + ": missing");
    }
    std::string supported;
    for (const GgufArch* a : kArchs) {
        if (*name == a->name) {
            return *a;
        }
        supported += (supported.empty() ? "" : ", ") + std::string(a->name);
    }
    throw UnsupportedModel(file.where("general.architecture") + ": '" + clipped(*name) +
                           "' is not supported (supported GGUF architectures: " + supported + ")");
}

std::optional<std::string> ggufTensorName(const GgufArch& arch, std::string_view hfName) {
    for (const auto& [hf, gguf] : arch.names) {
        if (hfName.starts_with(hf)) {
            return std::string(gguf) + std::string(hfName.substr(hf.size()));
        }
    }
    return std::nullopt;
}

int metadataSize(const io::GgufFile& f, const std::string& key, std::optional<int> fallback) {
    const std::optional<std::uint64_t> v = f.unsignedAt(key);
    if (!v) {
        if (fallback) {
            return *fallback;
        }
        throw FormatError(f.where(key) + ": missing (llama.cpp requires it)");
    }
    if (*v == 0 || *v > static_cast<std::uint64_t>(kMaxModelWidth)) {
        throw FormatError(f.where(key) + ": " + std::to_string(*v) +
                          " is not a size (expected 1 to 2^24)");
    }
    return static_cast<int>(*v);
}

double positiveNumber(const io::GgufFile& f, const std::string& key, double fallback) {
    const double v = f.numberAt(key).value_or(fallback);
    if (!(v > 0.0)) {
        throw FormatError(f.where(key) + ": " + std::to_string(v) + " must be positive");
    }
    return v;
}

float requiredEpsilon(const io::GgufFile& f, const std::string& key) {
    if (!f.find(key)) {
        throw FormatError(f.where(key) + ": missing (llama.cpp requires it)");
    }
    return static_cast<float>(positiveNumber(f, key, 1e-6));
}

int embeddingRows(const io::GgufFile& f) {
    const io::GgufTensor* embedding = f.tensor(kTokenEmbeddingTensor);
    if (embedding == nullptr || embedding->ne.size() != 2 || embedding->ne[1] <= 0 ||
        embedding->ne[1] > kMaxModelWidth) {
        throw FormatError(f.path().string() + ": tensor '" + kTokenEmbeddingTensor +
                          "': missing or not a [vocabulary, width] matrix");
    }
    return static_cast<int>(embedding->ne[1]);
}

namespace {

void readHeadWidths(const io::GgufFile& f, const std::string& arch, ModelSpec& spec) {
    const std::string keyLength = arch + ".attention.key_length";
    if (f.find(keyLength) == nullptr && spec.dModel % spec.nHeads != 0) {
        throw FormatError(f.where(arch + ".embedding_length") + ": " + std::to_string(spec.dModel) +
                          " is not divisible by " + arch + ".attention.head_count (" +
                          std::to_string(spec.nHeads) + ") and there is no " + keyLength);
    }
    spec.headDimK = metadataSize(f, keyLength, spec.dModel / spec.nHeads);
    spec.headDimV = metadataSize(f, arch + ".attention.value_length", spec.headDimK);
}

}  // namespace

void readBlockShape(const io::GgufFile& f, const std::string& a, ModelSpec& spec) {
    spec.modelType = a;
    spec.nLayers = metadataSize(f, a + ".block_count");
    spec.dModel = metadataSize(f, a + ".embedding_length");
    spec.dFfn = metadataSize(f, a + ".feed_forward_length");
    spec.nHeads = metadataSize(f, a + ".attention.head_count");
    spec.nKvHeads = metadataSize(f, a + ".attention.head_count_kv", spec.nHeads);
    readHeadWidths(f, a, spec);
    spec.maxPositions = metadataSize(f, a + ".context_length");
}

}  // namespace gguf
}  // namespace attnscope::model
