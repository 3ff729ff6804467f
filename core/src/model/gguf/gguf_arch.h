// The architectures AttnScope reads from GGUF files: how llama.cpp's metadata keys become a
// ModelSpec and its tensor names the Hugging Face names of the architecture's table
// (model/arch/*.cpp), so a GGUF model is read into the same typed slots as a safetensors one.
// Written from llama.cpp's convert_hf_to_gguf.py, gguf-py's constants and tensor mapping, and
// src/llama-model.cpp (which keys each architecture requires and their defaults). The Llama
// family is in gguf_arch.cpp, GPT-2 and BERT in gguf_arch_classic.cpp. Internal to
// attnscope_core.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "attnscope/io/gguf.h"
#include "attnscope/model/arch_table.h"

namespace attnscope::model::gguf {

// A Hugging Face name prefix, as the architecture's table spells it, and its GGUF spelling
// ("layers.{}.self_attn.q_proj." -> "blk.{}.attn_q."; "{}" is the layer).
struct GgufName {
    std::string_view hf;
    std::string_view gguf;
};

struct GgufArch {
    const char* name;        // general.architecture: "llama", "qwen2", "gpt2", "bert"
    const ArchTable* table;  // the Hugging Face table whose roles and names it maps onto
    // llama.cpp's converter stores attn_q/attn_k rows in Meta's interleaved rotary order for
    // this architecture (ggml rope mode NORM); the loader puts them back in Hugging Face's.
    bool interleavedQk;
    ModelSpec (*readSpec)(const io::GgufFile& file, const GgufArch& arch);
    std::span<const GgufName> names;  // every name of `table`'s tensors the files hold
    // CausalLm: the head is output.weight, or token_embd when it is absent (tied). None: the
    // converter leaves the head out (BERT's masked-LM head), so the file predicts nothing.
    PredictionKind prediction;
    // Tensors llama.cpp's files may hold that AttnScope does not use, by name prefix (BERT's
    // sequence-classification head "cls."); others are reported as unknown.
    std::span<const std::string_view> ignored = {};
};

// The entry for the file's general.architecture; UnsupportedModel naming it and listing the
// supported ones otherwise, FormatError when the key is missing.
const GgufArch& ggufArchFor(const io::GgufFile& file);

// The GGUF tensor name of a table entry's name ("layers.{}.self_attn.q_proj.weight" ->
// "blk.{}.attn_q.weight", the layer placeholder kept); nullopt for names the files do not use.
std::optional<std::string> ggufTensorName(const GgufArch& arch, std::string_view hfName);

// The GGUF name of the untied LM head.
inline constexpr const char* kOutputTensor = "output.weight";
// llama.cpp's Llama 3 rope scaling: one factor per rotated frequency.
inline constexpr const char* kRopeFreqsTensor = "rope_freqs.weight";
inline constexpr const char* kTokenEmbeddingTensor = "token_embd.weight";

// The metadata readers every architecture's readSpec uses.

// A positive size from the metadata that the spec stores in an int; `fallback` when the key is
// absent, else FormatError "missing (llama.cpp requires it)".
int metadataSize(const io::GgufFile& f, const std::string& key, std::optional<int> fallback = {});

// A positive number from the metadata, `fallback` when the key is absent.
double positiveNumber(const io::GgufFile& f, const std::string& key, double fallback);

// The layer norm epsilon at `key`, which llama.cpp requires.
float requiredEpsilon(const io::GgufFile& f, const std::string& key);

// The rows of token_embd.weight, the vocabulary size; FormatError when it is missing or not a
// [vocabulary, width] matrix.
int embeddingRows(const io::GgufFile& f);

// What every architecture reads the same way (llama_model::load_hparams): the model type, layer
// count, width, feed-forward width, heads and key/value heads, context length, and the head
// widths from attention.key_length / value_length, else the width over the heads (FormatError
// naming both keys when the heads do not divide it).
void readBlockShape(const io::GgufFile& f, const std::string& arch, ModelSpec& spec);

// The GPT-2 and BERT entries (gguf_arch_classic.cpp).
extern const GgufArch kGpt2Arch;
extern const GgufArch kBertArch;

}  // namespace attnscope::model::gguf
