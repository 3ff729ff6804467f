// Ollama's model store, read as Ollama's sources lay it out (envconfig/config.go, manifest/
// paths.go, manifest/manifest.go, types/model/name.go):
//   manifests/<registry>/<namespace>/<model>/<tag>     a JSON manifest per tag (OCI-like: a
//                                                      config and layers, each a mediaType,
//                                                      a "sha256:<hex>" digest and a size)
//   manifests-v2/<host>/<namespace>/<model>/<tag>      the newer layout (often a link to the
//                                                      manifest's own blob); read first
//   blobs/sha256-<hex>                                 every layer by digest ("sha256:<hex>"
//                                                      in stores written before 0.1.30)
// The model's weights are the layer of mediaType application/vnd.ollama.image.model, a GGUF
// file; params, template, system and license layers are small texts beside it. A manifest list
// (application/vnd.ollama.manifest.list.v2+json) holds one manifest per runner; the GGUF one
// is read. Digests are checked before they become paths, so a manifest cannot point outside
// the store.
#include <array>
#include <cctype>
#include <optional>
#include <regex>
#include <set>
#include <system_error>
#include <utility>

#include "attnscope/base/error.h"
#include "attnscope/io/json_access.h"
#include "attnscope/io/json_text.h"
#include "attnscope/model/model_discovery.h"
#include "gguf_discovery.h"

namespace attnscope::model {

namespace fs = std::filesystem;

fs::path ollamaModelsDir(const std::string& ollamaModels, const std::string& home) {
    // envconfig.Var: the value with surrounding spaces, then quotes, trimmed.
    const auto first = ollamaModels.find_first_not_of(" \t\r\n");
    const auto last = ollamaModels.find_last_not_of(" \t\r\n");
    std::string value =
        first == std::string::npos ? std::string() : ollamaModels.substr(first, last - first + 1);
    const auto inner = value.find_first_not_of("\"'");
    value = inner == std::string::npos
                ? std::string()
                : value.substr(inner, value.find_last_not_of("\"'") - inner + 1);
    if (!value.empty()) {
        return value;
    }
    return fs::path(home) / ".ollama" / "models";
}

namespace {

constexpr const char* kModelLayer = "application/vnd.ollama.image.model";
constexpr const char* kManifestList = "application/vnd.ollama.manifest.list.v2+json";
// Manifests are a few hundred bytes; a bigger "manifest" is not one (a link to a model blob).
constexpr std::uintmax_t kMaxManifestBytes = 1 << 20;

struct ManifestFile {
    fs::path path;
    std::array<std::string, 4> parts;  // registry, namespace, model, tag
};

// Every file exactly four folders below `root`, as Ollama globs them (*/*/*/*).
void collectManifests(const fs::path& dir, std::array<std::string, 4>& parts, std::size_t depth,
                      std::vector<ManifestFile>& out) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        parts[depth] = entry.path().filename().string();
        const bool isDir = entry.is_directory(ec);
        if (depth + 1 < parts.size() && isDir) {
            collectManifests(entry.path(), parts, depth + 1, out);
        } else if (depth + 1 == parts.size() && !isDir) {
            out.push_back({entry.path(), parts});
        }
    }
}

std::string lower(std::string s) {
    for (char& c : s) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return s;
}

bool isPublicHost(std::string registry) {
    registry = lower(std::move(registry));  // Ollama compares hosts case-insensitively
    return registry == "registry.ollama.ai" || registry == "ollama.com";
}

// ModelPath.GetShortTagname: "model:tag", "namespace/model:tag" off the "library" namespace,
// "registry/namespace/model:tag" off Ollama's own registry.
std::string displayName(const std::array<std::string, 4>& p) {
    const std::string modelTag = p[2] + ":" + p[3];
    if (!isPublicHost(p[0])) {
        return p[0] + "/" + p[1] + "/" + modelTag;
    }
    return p[1] == "library" ? modelTag : p[1] + "/" + modelTag;
}

io::Json readManifest(const fs::path& path) {
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec) {
        throw Error(path.string() + ": " + ec.message());
    }
    if (size > kMaxManifestBytes) {
        throw FormatError(path.string() + ": " + std::to_string(size) +
                          " bytes: too large for a manifest");
    }
    return io::readJsonFile(path);
}

// The digest a manifest names as a path in the store: "sha256:<64 hex>" (or "sha256-<64 hex>",
// as Ollama also accepts) -> blobs/sha256-<hex>, or blobs/sha256:<hex> where an old store has
// it. Anything else throws, so no digest can walk out of blobs/.
fs::path blobPath(const fs::path& store, const std::string& digest, const io::JsonAt& at) {
    static const std::regex kDigest("sha256[:-]([0-9a-fA-F]{64})");
    std::smatch m;
    if (!std::regex_match(digest, m, kDigest)) {
        io::failAt(at, "digest " + io::quoteJson(digest) + " is not sha256: and 64 hex digits");
    }
    const fs::path blob = store / "blobs" / ("sha256-" + m[1].str());
    const fs::path old = store / "blobs" / ("sha256:" + m[1].str());
    std::error_code ec;
    return !fs::exists(blob, ec) && fs::exists(old, ec) ? old : blob;
}

// The runnable manifest of a list: the entry for Ollama's own or the llama.cpp runner (the GGUF
// ones), written inline or as a reference to a manifest blob.
io::Json manifestFromList(const fs::path& store, const io::Json& list, const io::JsonAt& at) {
    const io::Json* entries = io::optionalArray(list, at, "manifests");
    for (std::size_t i = 0; entries != nullptr && i < entries->size(); ++i) {
        const io::Json& entry = (*entries)[i];
        const io::JsonAt entryAt = at["manifests"][i];
        const std::string runner = lower(io::optionalString(entry, entryAt, "runner").value_or(""));
        const std::string format = lower(io::optionalString(entry, entryAt, "format").value_or(""));
        if (runner != "ollama" && runner != "llamacpp" && format != "gguf") {
            continue;
        }
        if (io::optionalArray(entry, entryAt, "layers") != nullptr) {
            return entry;
        }
        const std::string digest =
            io::asString(io::member(entry, entryAt, "digest"), entryAt["digest"]);
        return readManifest(blobPath(store, digest, entryAt["digest"]));
    }
    io::failAt(at, "no GGUF manifest in the list (runners ollama, llamacpp)");
}

// The model layer's blob, checked against the size the manifest gives: a missing or short one
// is listed with the path where it should be and why; else the GGUF file's own entry.
FoundModel inspectModelLayer(const fs::path& store, const io::Json& layer, const io::JsonAt& at,
                             FoundModel m) {
    const fs::path blob =
        blobPath(store, io::asString(io::member(layer, at, "digest"), at["digest"]), at["digest"]);
    const auto expected = io::optionalInt(layer, at, "size", 0);
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(blob, ec);
    if (ec) {
        m.path = blob;
        m.note = "its model blob " + blob.filename().string().substr(0, 19) + "… is missing";
    } else if (expected && static_cast<std::uintmax_t>(*expected) != size) {
        m.path = blob;
        m.note = "its model blob has " + std::to_string(size) + " bytes, the manifest says " +
                 std::to_string(*expected) + " (an unfinished download?)";
    } else {
        m = inspectGgufFile(blob, m.name, kSourceOllama);
    }
    return m;
}

// The manifest Ollama runs for a tag: the file itself, or the GGUF entry of a manifest list
// (`at` then names the list's entries, whose problems are the list's).
io::Json runnableManifest(const fs::path& store, const ManifestFile& file, io::JsonAt& at) {
    io::Json manifest = readManifest(file.path);
    io::expectObject(manifest, at);
    if (io::optionalString(manifest, at, "mediaType").value_or("") == kManifestList) {
        manifest = manifestFromList(store, manifest, at);
        at = at["manifests"];
        io::expectObject(manifest, at);
    }
    return manifest;
}

// The index of the manifest's model layer (application/vnd.ollama.image.model), if it has one.
std::optional<std::size_t> modelLayerIndex(const io::Json& manifest, const io::JsonAt& at) {
    const io::Json& layers = io::member(manifest, at, "layers");
    io::expectArray(layers, at["layers"]);
    for (std::size_t i = 0; i < layers.size(); ++i) {
        if (io::optionalString(layers[i], at["layers"][i], "mediaType").value_or("") ==
            kModelLayer) {
            return i;
        }
    }
    return std::nullopt;
}

// One tag's entry: its manifest (or the GGUF one of a manifest list), then its model layer.
// Whatever is wrong is the entry's note; path stays the manifest until the blob is known.
FoundModel inspectManifest(const fs::path& store, const ManifestFile& file) {
    FoundModel m;
    m.name = displayName(file.parts);
    m.path = file.path;
    m.source = kSourceOllama;
    try {
        io::JsonAt at{file.path.string()};
        const io::Json manifest = runnableManifest(store, file, at);
        if (const auto layer = modelLayerIndex(manifest, at)) {
            return inspectModelLayer(store, io::member(manifest, at, "layers")[*layer],
                                     at["layers"][*layer], m);
        }
        const std::string format = io::optionalString(manifest, at, "format").value_or("");
        m.note =
            "no GGUF model layer" + (format.empty() ? "" : " (its weights are " + format + ")");
    } catch (const std::exception& e) {
        m.note = gguf::withoutFile(e.what(), file.path);
    }
    return m;
}

// Every tag of the store once, as Ollama resolves a name: manifests-v2 first, the legacy
// manifest of the same name being stale.
std::vector<ManifestFile> storeTags(const fs::path& modelsDir) {
    std::vector<ManifestFile> tags;
    std::set<std::string> names;
    for (const char* root : {"manifests-v2", "manifests"}) {
        std::vector<ManifestFile> files;
        std::array<std::string, 4> parts;
        collectManifests(modelsDir / root, parts, 0, files);
        for (ManifestFile& file : files) {
            if (names.insert(displayName(file.parts)).second) {
                tags.push_back(std::move(file));
            }
        }
    }
    return tags;
}

}  // namespace

std::vector<FoundModel> findOllamaModels(const fs::path& modelsDir) {
    std::vector<FoundModel> found;
    for (const ManifestFile& tag : storeTags(modelsDir)) {
        found.push_back(inspectManifest(modelsDir, tag));
    }
    gguf::sortByName(found);
    return found;
}

std::string ollamaModelName(const fs::path& blob) {
    static const std::regex kBlobName("sha256[-:][0-9a-fA-F]{64}");
    if (blob.parent_path().filename() != "blobs" ||
        !std::regex_match(blob.filename().string(), kBlobName)) {
        return {};
    }
    const fs::path store = blob.parent_path().parent_path();
    std::string name;
    for (const ManifestFile& tag : storeTags(store)) {
        const std::string tagName = displayName(tag.parts);
        if (!name.empty() && name <= tagName) {
            continue;  // the first name in the list's order is kept
        }
        try {
            io::JsonAt at{tag.path.string()};
            const io::Json manifest = runnableManifest(store, tag, at);
            const auto layer = modelLayerIndex(manifest, at);
            if (!layer) {
                continue;
            }
            const io::JsonAt layerAt = at["layers"][*layer];
            const io::Json& entry = io::member(manifest, at, "layers")[*layer];
            const io::Json& digest = io::member(entry, layerAt, "digest");
            if (blobPath(store, io::asString(digest, layerAt["digest"]), layerAt["digest"])
                    .filename() == blob.filename()) {
                name = tagName;
            }
        } catch (const std::exception&) {
            // a manifest that cannot be read names no blob
        }
    }
    return name;
}

}  // namespace attnscope::model
