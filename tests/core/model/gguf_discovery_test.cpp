// Finding GGUF models where llama.cpp and Ollama keep them (issue 32): fake stores in a scratch
// folder, with files from the tests' own GGUF writer (support/gguf_builder.h). Broken entries
// are listed with their reason, never thrown, and no manifest can point outside its store.
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "../support/gguf_builder.h"
#include "../support/test_files.h"
#include "attnscope/model/model_discovery.h"

namespace attnscope::model {
namespace {

namespace fs = std::filesystem;
using testing::GgufBuilder;

constexpr std::uint32_t kF32 = 0;
constexpr std::uint32_t kQ8_0 = 8;
constexpr std::uint32_t kIq2Xxs = 16;
constexpr std::uint64_t kTinyParameters = 32 * 8 + 32;

// A header AttnScope reads as a llama (its weights are zeros): a Q8_0 token embedding of 8
// tokens by 32 and an F32 norm. `arch` renames the architecture; `iq2` adds a matrix of a type
// AttnScope does not read; `fileType` is general.file_type (absent when nullopt).
std::string tinyGguf(const std::string& arch = "llama", std::optional<std::uint32_t> fileType = 7,
                     bool iq2 = false) {
    GgufBuilder b;
    b.text("general.architecture", arch).text("general.name", "Tiny " + arch);
    if (fileType) {
        b.u32("general.file_type", *fileType);
    }
    b.u32(arch + ".block_count", 1)
        .u32(arch + ".context_length", 64)
        .u32(arch + ".embedding_length", 32)
        .u32(arch + ".feed_forward_length", 32)
        .u32(arch + ".attention.head_count", 2)
        .f32(arch + ".attention.layer_norm_rms_epsilon", 1e-5f);
    b.tensor("token_embd.weight", {32, 8}, kQ8_0, std::string(8 * 34, '\0'));
    b.tensor("output_norm.weight", {32}, kF32, std::string(32 * 4, '\0'));
    if (iq2) {
        b.tensor("blk.0.ffn_down.weight", {256, 2}, kIq2Xxs, std::string(2 * 66, '\0'));
    }
    return b.bytes();
}

void write(const fs::path& path, const std::string& bytes) {
    fs::create_directories(path.parent_path());
    testing::writeFile(path, bytes);
}

const FoundModel* named(const std::vector<FoundModel>& found, const std::string& name) {
    for (const FoundModel& m : found) {
        if (m.name == name) {
            return &m;
        }
    }
    return nullptr;
}

TEST(GgufDiscovery, PlacesFollowTheEnvironment) {
    EXPECT_EQ(llamaCppCacheDir("/l", "/x", "/home/u"), fs::path("/l"));
    EXPECT_EQ(llamaCppCacheDir("", "/x", "/home/u"), fs::path("/x/llama.cpp"));
    EXPECT_EQ(llamaCppCacheDir("", "", "/home/u"), fs::path("/home/u/.cache/llama.cpp"));
    EXPECT_EQ(ollamaModelsDir("/o", "/home/u"), fs::path("/o"));
    EXPECT_EQ(ollamaModelsDir(" \"/o m\" ", "/home/u"), fs::path("/o m"));  // as Ollama trims
    EXPECT_EQ(ollamaModelsDir("", "/home/u"), fs::path("/home/u/.ollama/models"));
    EXPECT_EQ(ollamaModelsDir("''", "/home/u"), fs::path("/home/u/.ollama/models"));

    const auto env = [](const char* name) -> std::string {
        return std::string(name) == "XDG_CACHE_HOME" ? "/x" : "";
    };
    const ModelPlaces places = modelPlaces(env, "/home/u");
    EXPECT_EQ(places.huggingFaceHub, fs::path("/x/huggingface/hub"));
    EXPECT_EQ(places.llamaCppCache, fs::path("/x/llama.cpp"));
    ASSERT_EQ(places.ollamaStores.size(), 2u);
    EXPECT_EQ(places.ollamaStores[0], fs::path("/home/u/.ollama/models"));
    EXPECT_EQ(places.ollamaStores[1], fs::path(kOllamaServiceModelsDir));
    const auto service = [](const char* name) -> std::string {
        return std::string(name) == "OLLAMA_MODELS" ? kOllamaServiceModelsDir : "";
    };
    EXPECT_EQ(modelPlaces(service, "/home/u").ollamaStores.size(), 1u);
}

TEST(GgufDiscovery, FileTypesAreNamedAsLlamaCppNamesThem) {
    EXPECT_EQ(llamaFileTypeName(0), "F32");
    EXPECT_EQ(llamaFileTypeName(1), "F16");
    EXPECT_EQ(llamaFileTypeName(7), "Q8_0");
    EXPECT_EQ(llamaFileTypeName(15), "Q4_K_M");
    EXPECT_EQ(llamaFileTypeName(18), "Q6_K");
    EXPECT_EQ(llamaFileTypeName(19), "IQ2_XXS");
    EXPECT_EQ(llamaFileTypeName(32), "BF16");
    EXPECT_EQ(llamaFileTypeName(38), "MXFP4_MOE");
    EXPECT_EQ(llamaFileTypeName(4), "");  // removed from llama.cpp
    EXPECT_EQ(llamaFileTypeName(1024), "");
}

TEST(GgufDiscovery, LlamaCppCacheListsItsFilesWithTheirLabels) {
    testing::ScratchDir cache;
    const fs::path tiny = cache.path() / "org_Tiny-GGUF_tiny-Q8_0.gguf";
    write(tiny, tinyGguf());
    write(cache.path() / "iq2.gguf", tinyGguf("llama", std::nullopt, true));
    write(cache.path() / "big-00001-of-00002.gguf", "GGUF broken");
    write(cache.path() / "big-00002-of-00002.gguf", "not even opened");
    write(cache.path() / "org_Tiny-GGUF_tiny-Q8_0.gguf.etag", "\"abc\"");
    write(cache.path() / "models--ggml-org--tiny-GGUF" / "snapshots" / "0123" / "tiny-F32.gguf",
          tinyGguf("llama", 0));

    const auto found = findLlamaCppModels(cache.path());
    ASSERT_EQ(found.size(), 4u);
    EXPECT_EQ(found[0].name, "big-00001-of-00002");
    EXPECT_EQ(found[1].name, "ggml-org/tiny-GGUF/tiny-F32");
    EXPECT_EQ(found[2].name, "iq2");
    EXPECT_EQ(found[3].name, "org_Tiny-GGUF_tiny-Q8_0");
    for (const FoundModel& m : found) {
        EXPECT_EQ(m.source, kSourceLlamaCpp);
    }
    EXPECT_FALSE(found[0].supported);
    EXPECT_FALSE(found[0].note.empty());
    EXPECT_EQ(found[0].note.find(cache.path().string()), std::string::npos) << found[0].note;
    EXPECT_TRUE(found[1].supported) << found[1].note;
    EXPECT_EQ(found[1].quantization, "F32");

    EXPECT_FALSE(found[2].supported);
    EXPECT_EQ(found[2].quantization, "IQ2_XXS");  // no file_type: the type of most values
    EXPECT_EQ(found[2].note, "type IQ2_XXS is not read yet (tensor blk.0.ffn_down.weight)");

    const FoundModel& m = found[3];
    EXPECT_TRUE(m.supported) << m.note;
    EXPECT_EQ(m.path, tiny);
    EXPECT_EQ(m.modelType, "llama");
    EXPECT_EQ(m.title, "Tiny llama");
    EXPECT_EQ(m.quantization, "Q8_0");
    EXPECT_EQ(m.sizeBytes, fs::file_size(tiny));
    EXPECT_EQ(m.parameters, kTinyParameters);
    EXPECT_TRUE(findLlamaCppModels(cache.path() / "missing").empty());
}

TEST(GgufDiscovery, UnsupportedArchitecturesAndSplitFilesSayWhy) {
    testing::ScratchDir dir;
    write(dir.path() / "g.gguf", tinyGguf("gemma3", 15));
    const FoundModel gemma = inspectGgufFile(dir.path() / "g.gguf", "g", kSourceLlamaCpp);
    EXPECT_FALSE(gemma.supported);
    EXPECT_EQ(gemma.modelType, "gemma3");
    EXPECT_EQ(gemma.quantization, "Q4_K_M");
    EXPECT_TRUE(gemma.note.starts_with("architecture 'gemma3' is not supported")) << gemma.note;

    GgufBuilder split;
    split.text("general.architecture", "llama")
        .kv("split.count", GgufBuilder::U16, GgufBuilder::raw<std::uint16_t>(3));
    write(dir.path() / "s.gguf", split.bytes());
    EXPECT_EQ(inspectGgufFile(dir.path() / "s.gguf", "s", kSourceLlamaCpp).note,
              "split into 3 files (not read yet)");
    const FoundModel missing = inspectGgufFile(dir.path() / "none.gguf", "none", kSourceLlamaCpp);
    EXPECT_FALSE(missing.supported);
    EXPECT_FALSE(missing.note.empty());
}

TEST(GgufDiscovery, HubSnapshotsWithGgufFilesListEachFile) {
    testing::ScratchDir hub;
    const fs::path snap = hub.path() / "models--bartowski--Tiny-GGUF" / "snapshots" / "abc";
    write(snap / "Tiny-Q8_0.gguf", tinyGguf());
    write(snap / "Q4" / "Tiny-Q4.gguf", tinyGguf("llama", 15));
    write(snap / "README.md", "# Tiny");
    const auto found = findCachedModels(hub.path());
    ASSERT_EQ(found.size(), 2u);  // not the folder: it has no config.json, only GGUF files
    EXPECT_EQ(found[0].name, "bartowski/Tiny-GGUF/Q4/Tiny-Q4");
    EXPECT_EQ(found[0].quantization, "Q4_K_M");
    EXPECT_EQ(found[1].name, "bartowski/Tiny-GGUF/Tiny-Q8_0");
    EXPECT_EQ(found[1].source, kSourceHuggingFace);
    EXPECT_TRUE(found[1].supported) << found[1].note;
}

// A manifest as Ollama writes one: a config layer, the model, and the texts beside it.
std::string manifest(const std::string& modelDigest, std::uint64_t size) {
    return R"({"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json",
        "config":{"mediaType":"application/vnd.docker.container.image.v1+json",
                  "digest":"sha256:)" +
           std::string(64, 'c') + R"(","size":10},
        "layers":[{"mediaType":"application/vnd.ollama.image.model","digest":")" +
           modelDigest + R"(","size":)" + std::to_string(size) + R"(},
                  {"mediaType":"application/vnd.ollama.image.params","digest":"sha256:)" +
           std::string(64, 'd') + R"(","size":20},
                  {"mediaType":"application/vnd.ollama.image.template","digest":"sha256:)" +
           std::string(64, 'e') + R"(","size":30}]})";
}

struct OllamaStore {
    testing::ScratchDir dir;
    const std::string tinyHex = std::string(64, 'a');
    const std::string goneHex = std::string(64, 'b');
    std::string tiny = tinyGguf();

    OllamaStore() {
        write(blob(tinyHex), tiny);
        write(blob(std::string(64, 'd')), R"({"stop":["<|eot|>"]})");
    }

    fs::path blob(const std::string& hex) const { return dir.path() / "blobs" / ("sha256-" + hex); }

    void tag(const std::string& root, const std::string& name, const std::string& text) const {
        write(dir.path() / root / name, text);
    }

    std::string tinyManifest() const { return manifest("sha256:" + tinyHex, tiny.size()); }
};

TEST(OllamaDiscovery, ListsTagsByTheirShortNames) {
    OllamaStore store;
    store.tag("manifests", "registry.ollama.ai/library/tiny/latest", store.tinyManifest());
    store.tag("manifests", "registry.ollama.ai/someone/tiny/1b", store.tinyManifest());
    store.tag("manifests", "hf.co/bartowski/Tiny-GGUF/Q8_0", store.tinyManifest());
    store.tag("manifests", "registry.ollama.ai/library/README", "not a manifest: too shallow");

    const auto found = findOllamaModels(store.dir.path());
    ASSERT_EQ(found.size(), 3u);
    EXPECT_EQ(found[0].name, "hf.co/bartowski/Tiny-GGUF:Q8_0");
    EXPECT_EQ(found[1].name, "someone/tiny:1b");
    EXPECT_EQ(found[2].name, "tiny:latest");
    for (const FoundModel& m : found) {
        EXPECT_TRUE(m.supported) << m.name << ": " << m.note;
        EXPECT_EQ(m.source, kSourceOllama);
        EXPECT_EQ(m.path, store.blob(store.tinyHex));  // two tags, one blob: both listed
        EXPECT_EQ(m.quantization, "Q8_0");
        EXPECT_EQ(m.sizeBytes, store.tiny.size());
    }
    EXPECT_TRUE(findOllamaModels(store.dir.path() / "missing").empty());
}

TEST(OllamaDiscovery, BrokenManifestsAreListedWithTheirReason) {
    OllamaStore store;
    const std::string lib = "registry.ollama.ai/library/";
    store.tag("manifests", lib + "gone/1b", manifest("sha256:" + store.goneHex, 100));
    store.tag("manifests", lib + "escape/latest", manifest("sha256:../../../../etc/passwd", 1));
    store.tag("manifests", lib + "broken/latest", R"({"layers": [)");
    store.tag("manifests", lib + "short/latest",
              manifest("sha256:" + store.tinyHex, store.tiny.size() + 1));
    store.tag(
        "manifests", lib + "weights/latest",
        R"({"format":"safetensors","layers":[{"mediaType":"application/vnd.ollama.image.tensor",
                 "digest":"sha256:)" +
            std::string(64, 'f') + R"(","size":1}]})");
    const auto found = findOllamaModels(store.dir.path());
    ASSERT_EQ(found.size(), 5u);
    for (const FoundModel& m : found) {
        EXPECT_FALSE(m.supported) << m.name;
        EXPECT_EQ(m.note.find(store.dir.path().string()), std::string::npos) << m.note;
    }
    const FoundModel* broken = named(found, "broken:latest");
    ASSERT_TRUE(broken);
    EXPECT_NE(broken->note.find("line 1"), std::string::npos) << broken->note;
    const FoundModel* escape = named(found, "escape:latest");
    ASSERT_TRUE(escape);
    EXPECT_NE(escape->note.find("is not sha256: and 64 hex digits"), std::string::npos)
        << escape->note;
    EXPECT_EQ(escape->path.parent_path().parent_path().filename(), "library");  // the manifest
    const FoundModel* gone = named(found, "gone:1b");
    ASSERT_TRUE(gone);
    EXPECT_EQ(gone->note, "its model blob sha256-" + store.goneHex.substr(0, 12) + "… is missing");
    EXPECT_EQ(gone->path, store.blob(store.goneHex));
    const FoundModel* shortBlob = named(found, "short:latest");
    ASSERT_TRUE(shortBlob);
    EXPECT_NE(shortBlob->note.find("unfinished download"), std::string::npos) << shortBlob->note;
    const FoundModel* weights = named(found, "weights:latest");
    ASSERT_TRUE(weights);
    EXPECT_EQ(weights->note, "no GGUF model layer (its weights are safetensors)");
}

// The newer manifests-v2 folder wins over a stale legacy manifest of the same name; manifest
// lists give the GGUF runner's manifest; old stores name blobs sha256:<hex>.
TEST(OllamaDiscovery, ReadsNewerAndOlderLayouts) {
    OllamaStore store;
    store.tag("manifests-v2", "ollama.com/library/tiny/latest", store.tinyManifest());
    store.tag("manifests", "registry.ollama.ai/library/tiny/latest",
              manifest("sha256:" + store.goneHex, 1));
    const std::string childHex = std::string(63, '0') + "1";
    write(store.blob(childHex), store.tinyManifest());
    store.tag("manifests-v2", "ollama.com/library/listed/latest",
              R"({"schemaVersion":2,"mediaType":"application/vnd.ollama.manifest.list.v2+json",
                  "manifests":[{"runner":"mlx","format":"safetensors","layers":[]},
                               {"runner":"ollama","format":"gguf","digest":"sha256:)" +
                  childHex + R"("}]})");
    const std::string oldHex = std::string(63, '0') + "2";
    write(store.dir.path() / "blobs" / ("sha256:" + oldHex), store.tiny);
    store.tag("manifests", "registry.ollama.ai/library/old/7b",
              manifest("sha256:" + oldHex, store.tiny.size()));

    const auto found = findOllamaModels(store.dir.path());
    ASSERT_EQ(found.size(), 3u);
    for (const FoundModel& m : found) {
        EXPECT_TRUE(m.supported) << m.name << ": " << m.note;
    }
    EXPECT_EQ(found[0].name, "listed:latest");
    EXPECT_EQ(found[0].path, store.blob(store.tinyHex));
    EXPECT_EQ(found[1].name, "old:7b");
    EXPECT_EQ(found[1].path.filename(), "sha256:" + oldHex);
    EXPECT_EQ(found[2].name, "tiny:latest");
}

// An opened blob is called by the name `ollama run` takes, not sha256-<hex>: the first of its
// tags in the list's order; a blob no current tag names, and any path outside a store's blobs/,
// has none.
TEST(OllamaDiscovery, NamesABlobByItsTag) {
    OllamaStore store;
    store.tag("manifests", "registry.ollama.ai/library/tiny/latest", store.tinyManifest());
    store.tag("manifests", "registry.ollama.ai/library/tiny/1b", store.tinyManifest());
    const std::string userHex = std::string(63, '0') + "3";
    const std::string hfHex = std::string(63, '0') + "4";
    const std::string v2Hex = std::string(63, '0') + "5";
    for (const std::string& hex : {userHex, hfHex, v2Hex, store.goneHex}) {
        write(store.blob(hex), store.tiny);
    }
    const auto tagOf = [&](const std::string& hex) {
        return manifest("sha256:" + hex, store.tiny.size());
    };
    store.tag("manifests", "registry.ollama.ai/someone/coder/7b", tagOf(userHex));
    store.tag("manifests", "hf.co/bartowski/Tiny-GGUF/Q4_K_M", tagOf(hfHex));
    // The legacy manifest of a name manifests-v2 has is stale: its blob has no name.
    store.tag("manifests-v2", "ollama.com/library/fresh/latest", tagOf(v2Hex));
    store.tag("manifests", "registry.ollama.ai/library/fresh/latest", tagOf(store.goneHex));
    store.tag("manifests", "registry.ollama.ai/library/broken/latest", R"({"layers": [)");

    EXPECT_EQ(ollamaModelName(store.blob(store.tinyHex)), "tiny:1b");
    EXPECT_EQ(ollamaModelName(store.blob(userHex)), "someone/coder:7b");
    EXPECT_EQ(ollamaModelName(store.blob(hfHex)), "hf.co/bartowski/Tiny-GGUF:Q4_K_M");
    EXPECT_EQ(ollamaModelName(store.blob(v2Hex)), "fresh:latest");
    EXPECT_EQ(ollamaModelName(store.blob(store.goneHex)), "");
    // The name in the list is the one a blob is called by.
    for (const FoundModel& m : findOllamaModels(store.dir.path())) {
        if (m.supported && m.name != "tiny:latest") {
            EXPECT_EQ(ollamaModelName(m.path), m.name);
        }
    }
    // Not a model blob of a store: a config blob, a file elsewhere, the hub cache's blobs.
    EXPECT_EQ(ollamaModelName(store.blob(std::string(64, 'd'))), "");
    EXPECT_EQ(ollamaModelName(store.dir.path() / "tiny.gguf"), "");
    EXPECT_EQ(ollamaModelName(store.dir.path() / "blobs" / store.tinyHex), "");
    EXPECT_EQ(ollamaModelName(fs::path("/nonexistent/blobs/sha256-" + store.tinyHex)), "");
}

// Every source once, in order; a folder named twice (here $LLAMA_CACHE set to the hub cache)
// is read once.
TEST(GgufDiscovery, LocalModelsGroupTheSources) {
    testing::ScratchDir root;
    const fs::path hub = root.path() / "hub";
    write(hub / "models--org--Tiny-GGUF" / "snapshots" / "1" / "t.gguf", tinyGguf());
    OllamaStore store;
    store.tag("manifests", "registry.ollama.ai/library/tiny/latest", store.tinyManifest());
    const auto found = findLocalModels({hub, hub, {store.dir.path(), store.dir.path()}});
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].source, kSourceHuggingFace);
    EXPECT_EQ(found[1].source, kSourceOllama);
}

}  // namespace
}  // namespace attnscope::model
