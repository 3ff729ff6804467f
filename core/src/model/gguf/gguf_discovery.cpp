// GGUF files as the model lists show them (their header only: architecture, quantization,
// size, parameters, whether AttnScope reads them), and llama.cpp's download cache.
#include "gguf_discovery.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <new>
#include <regex>
#include <system_error>
#include <tuple>
#include <utility>

#include "attnscope/base/error.h"
#include "attnscope/io/ggml_types.h"
#include "attnscope/io/gguf.h"
#include "attnscope/model/model_spec.h"
#include "gguf_arch.h"

namespace attnscope::model {

namespace fs = std::filesystem;

fs::path llamaCppCacheDir(const std::string& llamaCache, const std::string& xdgCache,
                          const std::string& home) {
    if (!llamaCache.empty()) {
        return llamaCache;
    }
    if (!xdgCache.empty()) {
        return fs::path(xdgCache) / "llama.cpp";
    }
    return fs::path(home) / ".cache" / "llama.cpp";
}

std::string llamaFileTypeName(std::uint64_t fileType) {
    // llama.h's enum llama_ftype; 4–6 and 33–35 were removed from llama.cpp, 1024 (GUESSED)
    // is never stored.
    static const std::map<std::uint64_t, const char*> kNames = {
        {0, "F32"},      {1, "F16"},      {2, "Q4_0"},       {3, "Q4_1"},    {7, "Q8_0"},
        {8, "Q5_0"},     {9, "Q5_1"},     {10, "Q2_K"},      {11, "Q3_K_S"}, {12, "Q3_K_M"},
        {13, "Q3_K_L"},  {14, "Q4_K_S"},  {15, "Q4_K_M"},    {16, "Q5_K_S"}, {17, "Q5_K_M"},
        {18, "Q6_K"},    {19, "IQ2_XXS"}, {20, "IQ2_XS"},    {21, "Q2_K_S"}, {22, "IQ3_XS"},
        {23, "IQ3_XXS"}, {24, "IQ1_S"},   {25, "IQ4_NL"},    {26, "IQ3_S"},  {27, "IQ3_M"},
        {28, "IQ2_S"},   {29, "IQ2_M"},   {30, "IQ4_XS"},    {31, "IQ1_M"},  {32, "BF16"},
        {36, "TQ1_0"},   {37, "TQ2_0"},   {38, "MXFP4_MOE"}, {39, "NVFP4"},  {40, "Q1_0"},
        {41, "Q2_0"},
    };
    const auto it = kNames.find(fileType);
    return it == kNames.end() ? std::string() : std::string(it->second);
}

namespace gguf {

std::string withoutFile(const std::string& what, const fs::path& file) {
    const std::string prefix = file.string() + ": ";
    return what.starts_with(prefix) ? what.substr(prefix.size()) : what;
}

std::vector<fs::path> ggufFilesIn(const fs::path& dir) {
    static const std::regex laterPart(R"(.*-(\d{5})-of-\d{5}\.gguf)");
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        std::smatch part;
        if (entry.path().extension() != ".gguf" || !entry.is_regular_file(ec) ||
            (std::regex_match(name, part, laterPart) && part[1] != "00001")) {
            continue;
        }
        files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace gguf

namespace {

// general.file_type as llama.cpp names it, else the type holding most of the matrices' values
// (a file written by another tool may leave the key out).
std::string quantizationOf(const io::GgufFile& file) {
    if (const io::GgufValue* v = file.find("general.file_type")) {
        if (const auto type = v->asUnsigned()) {
            if (std::string name = llamaFileTypeName(*type); !name.empty()) {
                return name;
            }
        }
    }
    std::map<io::GgmlType, std::int64_t> values;
    for (const io::GgufTensor& t : file.tensors()) {
        if (t.ne.size() >= 2) {
            values[t.type] += t.elements();
        }
    }
    const auto most = std::max_element(values.begin(), values.end(),
                                       [](auto& a, auto& b) { return a.second < b.second; });
    return most == values.end() ? std::string() : std::string(io::ggmlTypeName(most->first));
}

// "" when AttnScope reads the file, else why not: the file split in parts, the architecture,
// its metadata (ggufArchFor, the architecture's readSpec), or a tensor type it cannot read.
std::string whyUnreadable(const io::GgufFile& file) {
    if (const io::GgufValue* count = file.find("split.count")) {
        if (count->asUnsigned().value_or(1) > 1) {
            return "split into " + std::to_string(*count->asUnsigned()) + " files (not read yet)";
        }
    }
    const gguf::GgufArch& arch = gguf::ggufArchFor(file);
    checkSpec(arch.readSpec(file, arch), file.path().string());
    for (const io::GgufTensor& t : file.tensors()) {
        if (!io::ggmlTypeInfo(t.type).readable) {
            return "type " + std::string(io::ggmlTypeName(t.type)) + " is not read yet (tensor " +
                   t.name + ")";
        }
    }
    return {};
}

// "<file>: key 'general.architecture': 'gemma3' is not supported (…)" -> "architecture
// 'gemma3' is not supported (…)".
std::string shortNote(const std::string& what, const fs::path& file) {
    std::string note = gguf::withoutFile(what, file);
    const std::string archKey = "key 'general.architecture': ";
    if (note.starts_with(archKey)) {
        note = "architecture " + note.substr(archKey.size());
    }
    return note;
}

// The entry of one file as its header gives it (name and source aside).
FoundModel readEntry(const fs::path& file, std::uint64_t sizeBytes) {
    FoundModel m;
    m.path = file;
    m.sizeBytes = sizeBytes;
    try {
        const io::GgufFile gguf(file);
        if (const io::GgufValue* arch = gguf.find("general.architecture")) {
            m.modelType = std::string(arch->asString().value_or(""));
        }
        if (const io::GgufValue* title = gguf.find("general.name")) {
            m.title = std::string(title->asString().value_or(""));
        }
        m.quantization = quantizationOf(gguf);
        for (const io::GgufTensor& t : gguf.tensors()) {
            m.parameters += static_cast<std::uint64_t>(t.elements());
        }
        m.note = whyUnreadable(gguf);
        m.supported = m.note.empty();
    } catch (const std::bad_alloc&) {
        m.note = "out of memory while reading its header";
    } catch (const std::exception& e) {
        // A broken file is listed with the reason, whatever the reader threw.
        m.note = shortNote(e.what(), file);
    }
    return m;
}

}  // namespace

FoundModel inspectGgufFile(const fs::path& file, std::string name, std::string source) {
    // Each version of a file is read once: the lists are rebuilt whenever the start page or the
    // menu shows, and a big model's header (its vocabulary) takes some 30 ms to check.
    using Version = std::tuple<fs::path, std::uintmax_t, fs::file_time_type>;
    static std::mutex mutex;
    static std::map<Version, FoundModel> read;
    std::error_code sizeEc;
    std::error_code timeEc;
    const std::uintmax_t size = fs::file_size(file, sizeEc);
    const fs::file_time_type time = fs::last_write_time(file, timeEc);
    FoundModel m;
    if (sizeEc || timeEc) {
        m = readEntry(file, 0);  // says why
    } else {
        const Version version{file, size, time};
        const std::lock_guard lock(mutex);
        const auto it = read.find(version);
        m = it != read.end() ? it->second
                             : read.emplace(version, readEntry(file, size)).first->second;
    }
    m.name = std::move(name);
    m.source = std::move(source);
    return m;
}

std::vector<FoundModel> findLlamaCppModels(const fs::path& cacheDir) {
    // llama.cpp's -hf downloads: <user>_<repo>_<file>.gguf in the folder itself, and newer
    // versions keep them in the Hugging Face layout (models--<user>--<repo>/snapshots/…).
    std::vector<FoundModel> found = findCachedModels(cacheDir, kSourceLlamaCpp);
    for (const fs::path& file : gguf::ggufFilesIn(cacheDir)) {
        found.push_back(inspectGgufFile(file, file.stem().string(), kSourceLlamaCpp));
    }
    gguf::sortByName(found);
    return found;
}

}  // namespace attnscope::model
