// The architectures AttnScope reads from GGUF files: how llama.cpp's metadata keys become a
// ModelSpec and its tensor names the Hugging Face names of the architecture's table
// (model/arch/*.cpp), so a GGUF model is read into the same typed slots as a safetensors one.
// Written from llama.cpp's convert_hf_to_gguf.py, gguf-py's constants and tensor mapping, and
// src/llama-model.cpp (which keys each architecture requires and their defaults). Internal to
// attnscope_core.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "attnscope/io/gguf.h"
#include "attnscope/model/arch_table.h"

namespace attnscope::model::gguf {

struct GgufArch {
    const char* name;        // general.architecture: "llama", "qwen2"
    const ArchTable* table;  // the Hugging Face table whose roles and names it maps onto
    // llama.cpp's converter stores attn_q/attn_k rows in Meta's interleaved rotary order for
    // this architecture (ggml rope mode NORM); the loader puts them back in Hugging Face's.
    bool interleavedQk;
    ModelSpec (*readSpec)(const io::GgufFile& file, const GgufArch& arch);
};

// The entry for the file's general.architecture; UnsupportedModel naming it and listing the
// supported ones otherwise, FormatError when the key is missing.
const GgufArch& ggufArchFor(const io::GgufFile& file);

// The GGUF tensor name of a table entry's name ("layers.{}.self_attn.q_proj.weight" ->
// "blk.{}.attn_q.weight", the layer placeholder kept); nullopt for names GGUF does not use.
std::optional<std::string> ggufTensorName(std::string_view hfName);

// The GGUF name of the untied LM head.
inline constexpr const char* kOutputTensor = "output.weight";
// llama.cpp's Llama 3 rope scaling: one factor per rotated frequency.
inline constexpr const char* kRopeFreqsTensor = "rope_freqs.weight";

}  // namespace attnscope::model::gguf
