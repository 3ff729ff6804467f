#include "attnscope/model/model_discovery.h"

#include <algorithm>
#include <system_error>

#include "attnscope/base/error.h"
#include "attnscope/io/json_file.h"
#include "attnscope/model/arch_table.h"

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

FoundModel inspect(const std::string& name, const fs::path& dir) {
    FoundModel m{name, dir, "", false, ""};
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
    if (!fs::exists(dir / "model.safetensors", ec) &&
        !fs::exists(dir / "model.safetensors.index.json", ec)) {
        m.note = "no safetensors weights";
        return m;
    }
    m.supported = true;
    return m;
}

}  // namespace

std::vector<FoundModel> findCachedModels(const fs::path& hubDir) {
    std::vector<FoundModel> found;
    std::error_code ec;
    for (const auto& repo : fs::directory_iterator(hubDir, ec)) {
        const std::string folder = repo.path().filename().string();
        if (!repo.is_directory(ec) || !folder.starts_with("models--")) {
            continue;
        }
        for (const auto& snap : fs::directory_iterator(repo.path() / "snapshots", ec)) {
            if (snap.is_directory(ec)) {
                found.push_back(inspect(repoName(folder), snap.path()));
            }
        }
    }
    std::sort(found.begin(), found.end(), [](const FoundModel& a, const FoundModel& b) {
        return a.name != b.name ? a.name < b.name : a.dir < b.dir;
    });
    return found;
}

}  // namespace attnscope::model
