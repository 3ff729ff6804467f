// Finds loadable models in the local Hugging Face cache (models--ORG--NAME/snapshots/REV/),
// so the app can offer them without a folder dialog. Reads directory listings and config.json
// only; never throws for a broken entry (it is listed with the reason instead).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace attnscope::model {

struct FoundModel {
    std::string name;           // "org/name", from the cache folder name
    std::filesystem::path dir;  // the snapshot folder to open
    std::string modelType;      // config.json's model_type ("" if unreadable)
    bool supported = false;     // a model_type AttnScope loads, with safetensors weights
    std::string note;           // why it is not supported, for the list's tooltip
};

// $HF_HUB_CACHE, else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
// ~/.cache/huggingface/hub. Arguments are the environment values (empty when unset).
std::filesystem::path huggingFaceHubDir(const std::string& hubCache, const std::string& hfHome,
                                        const std::string& xdgCache, const std::string& home);

// Every snapshot under `hubDir`, sorted by name; empty when the folder does not exist.
std::vector<FoundModel> findCachedModels(const std::filesystem::path& hubDir);

}  // namespace attnscope::model
