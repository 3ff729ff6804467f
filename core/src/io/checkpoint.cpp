#include "attnscope/io/checkpoint.h"

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "attnscope/base/error.h"
#include "attnscope/io/input_file.h"
#include "attnscope/io/json_access.h"
#include "attnscope/io/json_text.h"

namespace attnscope::io {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Shard names come from the file; refuse anything that would leave the model folder.
fs::path shardPath(const fs::path& dir, const std::string& name, const std::string& where) {
    const fs::path p(name);
    if (name.empty() || p.is_absolute() || p.has_parent_path() || name == "." || name == "..") {
        throw FormatError(where + ": shard file name '" + clipped(name) +
                          "' is not a plain file name");
    }
    return dir / p;
}

}  // namespace

Checkpoint::Checkpoint(const fs::path& modelDir) {
    const fs::path single = modelDir / "model.safetensors";
    const fs::path index = modelDir / "model.safetensors.index.json";
    // A path that exists but is broken (a symlink loop, a directory, a FIFO) is opened so that
    // its own error names it, instead of being taken for a missing file.
    if (pathKind(single).exists()) {
        m_files.push_back(std::make_unique<SafetensorsFile>(single));
    } else if (pathKind(index).exists()) {
        openSharded(index);
    } else {
        throw FormatError(modelDir.string() +
                          ": no weights: expected model.safetensors or "
                          "model.safetensors.index.json (PyTorch .bin files are not supported; "
                          "convert them with save_pretrained(safe_serialization=True))");
    }
}

void Checkpoint::openSharded(const fs::path& indexPath) {
    const JsonAt at{indexPath.string()};
    const json index = readJsonFile(indexPath);
    const JsonAt mapAt = at["weight_map"];
    const json& weightMap = member(index, at, "weight_map");
    expectObject(weightMap, mapAt);
    std::map<std::string, std::size_t> shardIndex;
    for (const auto& [tensor, shard] : weightMap.items()) {
        const JsonAt shardAt = mapAt[clipped(tensor)];
        const std::string name = asString(shard, shardAt);
        if (!shardIndex.contains(name)) {
            shardIndex[name] = m_files.size();
            m_files.push_back(std::make_unique<SafetensorsFile>(
                shardPath(indexPath.parent_path(), name, shardAt.file + ": " + shardAt.path)));
        }
        if (m_files[shardIndex[name]]->find(tensor) == nullptr) {
            failAt(shardAt,
                   "the index places this tensor in " + clipped(name) + ", which does not hold it");
        }
    }
    if (m_files.empty()) {
        failAt(mapAt, "lists no tensors");
    }
}

TensorRef Checkpoint::find(const std::string& name) const {
    for (const auto& f : m_files) {
        if (const TensorInfo* t = f->find(name)) {
            return {t, f.get()};
        }
    }
    return {};
}

std::vector<std::string> Checkpoint::tensorNames() const {
    std::vector<std::string> names;
    for (const auto& f : m_files) {
        for (const auto& [name, t] : f->tensors()) {
            names.push_back(name);
        }
    }
    return names;
}

std::string Checkpoint::storedDtypes() const {
    std::set<std::string> kinds;
    for (const auto& f : m_files) {
        for (const auto& [name, t] : f->tensors()) {
            if (t.dtype == DType::F32 || t.dtype == DType::F16 || t.dtype == DType::BF16 ||
                t.dtype == DType::F64) {
                kinds.insert(std::string(dtypeName(t.dtype)));
            }
        }
    }
    std::string out;
    for (const std::string& k : kinds) {
        out += (out.empty() ? "" : "+") + k;
    }
    return out;
}

}  // namespace attnscope::io
