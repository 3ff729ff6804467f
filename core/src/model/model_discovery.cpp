// The Hugging Face cache and the places every finder looks in; the GGUF finders are in
// gguf/gguf_discovery.cpp (llama.cpp) and gguf/ollama_store.cpp.
#include "attnscope/model/model_discovery.h"

#include <algorithm>
#include <set>
#include <system_error>

#include "attnscope/base/error.h"
#include "attnscope/io/json_file.h"
#include "attnscope/model/arch_table.h"
#include "gguf/gguf_discovery.h"

namespace attnscope::model {

namespace fs = std::filesystem;

fs::path huggingFaceHubDir(const std::string& hubCache, const std::string& hfHome,
                           const std::string& xdgCache, const std::string& home) {
    if (!hubCache.empty()) {
        return hubCache;
    }
    if (!hfHome.empty()) {
        return fs::path(hfHome) / "hub";
    }
    if (!xdgCache.empty()) {
        return fs::path(xdgCache) / "huggingface" / "hub";
    }
    return fs::path(home) / ".cache" / "huggingface" / "hub";
}

ModelPlaces modelPlaces(const std::function<std::string(const char*)>& env,
                        const std::string& home) {
    ModelPlaces places;
    places.huggingFaceHub =
        huggingFaceHubDir(env("HF_HUB_CACHE"), env("HF_HOME"), env("XDG_CACHE_HOME"), home);
    places.llamaCppCache = llamaCppCacheDir(env("LLAMA_CACHE"), env("XDG_CACHE_HOME"), home);
    places.ollamaStores.push_back(ollamaModelsDir(env("OLLAMA_MODELS"), home));
    // The service's store is not the user's $OLLAMA_MODELS: the service has its own environment.
    if (places.ollamaStores.front() != kOllamaServiceModelsDir) {
        places.ollamaStores.emplace_back(kOllamaServiceModelsDir);
    }
    return places;
}

namespace {

// "models--google--bert_uncased" -> "google/bert_uncased"
std::string repoName(const std::string& folder) {
    const std::string rest = folder.substr(std::string("models--").size());
    const auto sep = rest.find("--");
    if (sep == std::string::npos) {
        return rest;
    }
    return rest.substr(0, sep) + "/" + rest.substr(sep + 2);
}

bool hasSafetensors(const fs::path& dir) {
    std::error_code ec;
    return fs::exists(dir / "model.safetensors", ec) ||
           fs::exists(dir / "model.safetensors.index.json", ec);
}

FoundModel inspectFolder(const std::string& name, const fs::path& dir, const std::string& source) {
    FoundModel m;
    m.name = name;
    m.path = dir;
    m.source = source;
    std::error_code ec;
    if (!fs::exists(dir / "config.json", ec)) {
        m.note = "no config.json";
        return m;
    }
    try {
        const io::JsonFile config(dir / "config.json");
        m.modelType = config.string("model_type", "");
        archTableFor(m.modelType, config.fileName());
    } catch (const Error& e) {
        m.note = e.what();
        return m;
    }
    if (!hasSafetensors(dir)) {
        m.note = "no safetensors weights";
        return m;
    }
    m.supported = true;
    return m;
}

// A snapshot's entries: the folder, unless it holds GGUF files and no safetensors weights (a
// GGUF repository has no config.json and would only be listed as broken), then each GGUF file
// in it or one folder down (repositories that keep each quantization in a folder).
void inspectSnapshot(const std::string& repo, const fs::path& snap, const std::string& source,
                     std::vector<FoundModel>& found) {
    std::vector<fs::path> ggufs = gguf::ggufFilesIn(snap);
    std::error_code ec;
    for (const auto& sub : fs::directory_iterator(snap, ec)) {
        if (sub.is_directory(ec)) {
            const std::vector<fs::path> inner = gguf::ggufFilesIn(sub.path());
            ggufs.insert(ggufs.end(), inner.begin(), inner.end());
        }
    }
    if (ggufs.empty() || hasSafetensors(snap)) {
        found.push_back(inspectFolder(repo, snap, source));
    }
    for (const fs::path& file : ggufs) {
        const fs::path rel = file.lexically_relative(snap);
        found.push_back(inspectGgufFile(
            file, repo + "/" + (rel.parent_path() / rel.stem()).generic_string(), source));
    }
}

}  // namespace

namespace gguf {

void sortByName(std::vector<FoundModel>& found) {
    std::sort(found.begin(), found.end(), [](const FoundModel& a, const FoundModel& b) {
        return a.name != b.name ? a.name < b.name : a.path < b.path;
    });
}

}  // namespace gguf

std::vector<FoundModel> findCachedModels(const fs::path& hubDir, const std::string& source) {
    std::vector<FoundModel> found;
    std::error_code ec;
    for (const auto& repo : fs::directory_iterator(hubDir, ec)) {
        const std::string folder = repo.path().filename().string();
        if (!repo.is_directory(ec) || !folder.starts_with("models--")) {
            continue;
        }
        std::error_code snapEc;
        for (const auto& snap : fs::directory_iterator(repo.path() / "snapshots", snapEc)) {
            if (snap.is_directory(snapEc)) {
                inspectSnapshot(repoName(folder), snap.path(), source, found);
            }
        }
    }
    gguf::sortByName(found);
    return found;
}

std::vector<FoundModel> findLocalModels(const ModelPlaces& places) {
    // Each folder once: $LLAMA_CACHE may be the hub cache, $OLLAMA_MODELS the service's store.
    // Files are not merged: two Ollama tags of one model share its blob and are both listed.
    std::set<fs::path> seen;
    const auto firstTime = [&seen](const fs::path& dir) {
        std::error_code ec;
        const fs::path key = fs::weakly_canonical(dir, ec);
        return seen.insert(ec ? dir : key).second;
    };
    std::vector<FoundModel> all;
    const auto add = [&all](const std::vector<FoundModel>& found) {
        all.insert(all.end(), found.begin(), found.end());
    };
    if (firstTime(places.huggingFaceHub)) {
        add(findCachedModels(places.huggingFaceHub));
    }
    if (firstTime(places.llamaCppCache)) {
        add(findLlamaCppModels(places.llamaCppCache));
    }
    for (const fs::path& store : places.ollamaStores) {
        if (firstTime(store)) {
            add(findOllamaModels(store));
        }
    }
    return all;
}

}  // namespace attnscope::model
