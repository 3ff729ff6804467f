// Loading a model from one GGUF file (llama.cpp, Ollama), the counterpart of a Hugging Face
// folder; model::loadModel calls it for a .gguf path. Internal to attnscope_core.
#pragma once

#include <filesystem>
#include <memory>

#include "attnscope/io/gguf.h"
#include "attnscope/model/model.h"

namespace attnscope::model::gguf {

// Throws FormatError / UnsupportedModel naming the file and the key or tensor, and Cancelled.
std::shared_ptr<const Model> loadGgufModel(const std::filesystem::path& path,
                                           const LoadOptions& options);

// A path loadModel reads as GGUF: a file (not a folder) named *.gguf, or one that starts with
// GGUF's magic (an Ollama blob, named by its digest).
bool isGgufPath(const std::filesystem::path& path);

// The tokenizer (TokenizerLoading::Full; its errors propagate) or the vocabulary alone
// (VocabularyOnly; a problem is a warning) from the tokenizer.ggml.* keys.
void readGgufTokenizer(const io::GgufFile& file, TokenizerLoading loading, Model& model);

}  // namespace attnscope::model::gguf
