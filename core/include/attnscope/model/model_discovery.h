// Finds the models already on this computer, so the app can offer them without a file dialog:
// the Hugging Face cache (models--ORG--NAME/snapshots/REV/: safetensors folders and GGUF files),
// llama.cpp's download cache and Ollama's model store (both GGUF). Reads directory listings,
// config.json, Ollama's JSON manifests and GGUF headers only; never throws for a broken entry
// (it is listed with the reason instead).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace attnscope::model {

// FoundModel::source values.
inline constexpr const char* kSourceHuggingFace = "Hugging Face";
inline constexpr const char* kSourceLlamaCpp = "llama.cpp";
inline constexpr const char* kSourceOllama = "Ollama";

struct FoundModel {
    // "org/name" for a Hugging Face folder, "org/name/file" for a GGUF file in the hub cache,
    // the file's stem in llama.cpp's cache, "model:tag" (with "namespace/" and the registry when
    // not Ollama's own) in Ollama's store.
    std::string name;
    std::filesystem::path path;  // what model::loadModel opens: a snapshot folder or a GGUF file
    std::string source;          // kSourceHuggingFace, kSourceLlamaCpp or kSourceOllama
    std::string modelType;  // config.json's model_type or GGUF general.architecture ("" unread)
    // GGUF only (empty or 0 for safetensors folders):
    std::string quantization;      // llama.cpp's name of general.file_type ("Q4_K_M", "F16")
    std::string title;             // general.name ("Qwen2.5 7B Instruct"), for tool tips
    std::uint64_t sizeBytes = 0;   // the file's size
    std::uint64_t parameters = 0;  // the tensors' elements
    bool supported = false;        // a type AttnScope loads, with weights it reads
    std::string note;              // why it is not supported, for the list's tooltip
};

// $HF_HUB_CACHE, else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
// ~/.cache/huggingface/hub. Arguments are the environment values (empty when unset).
std::filesystem::path huggingFaceHubDir(const std::string& hubCache, const std::string& hfHome,
                                        const std::string& xdgCache, const std::string& home);

// llama.cpp's cache (common.cpp, fs_get_cache_directory): $LLAMA_CACHE, else
// $XDG_CACHE_HOME/llama.cpp, else ~/.cache/llama.cpp.
std::filesystem::path llamaCppCacheDir(const std::string& llamaCache, const std::string& xdgCache,
                                       const std::string& home);

// Ollama's store (envconfig.Models): $OLLAMA_MODELS (spaces and quotes around it dropped, as
// Ollama does), else ~/.ollama/models.
std::filesystem::path ollamaModelsDir(const std::string& ollamaModels, const std::string& home);

// Where the Linux install script's service keeps its models (its user's home is /usr/share/ollama).
inline constexpr const char* kOllamaServiceModelsDir = "/usr/share/ollama/.ollama/models";

// Every place looked in, from the environment: `env` returns a variable's value ("" unset).
struct ModelPlaces {
    std::filesystem::path huggingFaceHub;
    std::filesystem::path llamaCppCache;
    std::vector<std::filesystem::path> ollamaStores;  // the user's, then the service's
};

ModelPlaces modelPlaces(const std::function<std::string(const char*)>& env,
                        const std::string& home);

// Every snapshot under `hubDir`, sorted by name: a safetensors folder as one model, each GGUF
// file in a snapshot (and one folder down) as another; empty when the folder does not exist.
// `source` labels them (llama.cpp's newer downloads use the same layout).
std::vector<FoundModel> findCachedModels(const std::filesystem::path& hubDir,
                                         const std::string& source = kSourceHuggingFace);

// The *.gguf files in llama.cpp's cache folder, and its Hugging Face-style snapshots
// (models--*/), sorted by name. Only a split model's first part is listed.
std::vector<FoundModel> findLlamaCppModels(const std::filesystem::path& cacheDir);

// The models of an Ollama store (manifests/ and manifests-v2/<registry>/<namespace>/<model>/
// <tag>, blobs/sha256-<hex>), sorted by name; path is the model layer's blob. A manifest that
// cannot be read, names a digest that is not "sha256:" and 64 hex digits, or a missing or
// truncated blob, is listed with the reason.
std::vector<FoundModel> findOllamaModels(const std::filesystem::path& modelsDir);

// The name a user runs an Ollama model blob by ("llama3.2:3b", "user/model:tag",
// "hf.co/org/repo:Q4_K_M"; FoundModel::name of findOllamaModels), for a `blob` at
// <store>/blobs/sha256-<hex> that a tag of that store names as its model layer: the first such
// name in the list's order when several tags share the blob. "" for any other path, so callers
// fall back to the file name. Reads the store's manifests, not the blob.
std::string ollamaModelName(const std::filesystem::path& blob);

// Everything in `places`, grouped by source (Hugging Face, llama.cpp, Ollama); a file found
// twice (the same store named twice, a link) is listed once.
std::vector<FoundModel> findLocalModels(const ModelPlaces& places);

// One GGUF file's entry, from its header: the architecture, quantization, size and parameters,
// and whether AttnScope reads it (a supported architecture, every tensor type readable). A
// header is read once per version of its file (path, size, time); thread-safe.
FoundModel inspectGgufFile(const std::filesystem::path& file, std::string name, std::string source);

// llama.cpp's name of a general.file_type value (llama.h's LLAMA_FTYPE_*): 15 -> "Q4_K_M",
// 1 -> "F16"; "" for a value it does not define.
std::string llamaFileTypeName(std::uint64_t fileType);

}  // namespace attnscope::model
