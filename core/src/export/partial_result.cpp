#include "attnscope/export/partial_result.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <utility>

#include "attnscope/base/error.h"
#include "attnscope/export/output_file.h"
#include "attnscope/io/input_file.h"
#include "attnscope/io/json_access.h"
#include "attnscope/io/json_text.h"

namespace attnscope::exporting {

namespace {

using io::JsonAt;
using nlohmann::json;

// Real models have at most a few hundred layers and heads; the limit keeps a hostile part from
// making the reader allocate for billions of heads before the state is checked against them.
constexpr std::int64_t kMaxLayersOrHeads = 4096;
constexpr std::int64_t kMaxHeadsInAll = std::int64_t{1} << 16;
constexpr std::int64_t kMaxTokens = std::int64_t{1} << 24;

// The folder or file name of a path as the user gave it ("models/bert/" -> "bert").
std::string baseName(const std::string& path) {
    const std::filesystem::path p = std::filesystem::path(path).lexically_normal();
    const std::filesystem::path name =
        p.filename().empty() ? p.parent_path().filename() : p.filename();
    return name.string();
}

std::string hex64(std::uint64_t v) {
    std::array<char, 17> buf{};
    std::snprintf(buf.data(), buf.size(), "%016llx", static_cast<unsigned long long>(v));
    return buf.data();
}

// FNV-1a, 64 bits: a cheap check that the shards read the same corpus bytes.
std::uint64_t fnv1a64(const std::filesystem::path& path, std::uint64_t* bytes) {
    std::ifstream in = io::openTextFile(path);
    std::uint64_t h = 0xcbf29ce484222325ull;
    std::array<char, 1 << 16> buf{};
    *bytes = 0;
    while (in) {
        in.read(buf.data(), buf.size());
        const auto n = static_cast<std::size_t>(in.gcount());
        for (std::size_t i = 0; i < n; ++i) {
            h = (h ^ static_cast<unsigned char>(buf[i])) * 0x100000001b3ull;
        }
        *bytes += n;
    }
    if (in.bad()) {
        throw FormatError(path.string() + ": read error while hashing the corpus");
    }
    return h;
}

// The first place where two JSON values differ, as "<path>: <a> vs <b>".
std::string firstDifference(const json& a, const json& b, const std::string& path) {
    if (a.is_object() && b.is_object()) {
        for (const auto& [key, value] : a.items()) {
            if (!b.contains(key)) {
                return path + "." + key + ": " + io::quoteJson(value) + " vs absent";
            }
            if (value != b.at(key)) {
                return firstDifference(value, b.at(key), path + "." + key);
            }
        }
        for (const auto& [key, value] : b.items()) {
            if (!a.contains(key)) {
                return path + "." + key + ": absent vs " + io::quoteJson(value);
            }
        }
    }
    return path + ": " + io::quoteJson(a) + " vs " + io::quoteJson(b);
}

json withoutPath(json section) {
    section.erase("path");
    return section;
}

void checkModel(const json& model, const JsonAt& at) {
    io::expectObject(model, at);
    (void)io::asString(io::member(model, at, "path"), at["path"]);
    (void)io::asString(io::member(model, at, "name"), at["name"]);
    const auto layers =
        io::asInt(io::member(model, at, "layers"), at["layers"], 1, kMaxLayersOrHeads);
    const auto heads = io::asInt(io::member(model, at, "heads"), at["heads"], 1, kMaxLayersOrHeads);
    (void)io::asInt(io::member(model, at, "max_tokens"), at["max_tokens"], 1, kMaxTokens);
    if (layers * heads > kMaxHeadsInAll) {
        io::failAt(at, std::to_string(layers) + " layers x " + std::to_string(heads) +
                           " heads; at most " + std::to_string(kMaxHeadsInAll) +
                           " heads in all are read");
    }
}

void checkCorpus(const json& corpus, const JsonAt& at) {
    io::expectObject(corpus, at);
    (void)io::asString(io::member(corpus, at, "path"), at["path"]);
    (void)io::asString(io::member(corpus, at, "name"), at["name"]);
    (void)io::asInt(io::member(corpus, at, "bytes"), at["bytes"], 0);
    (void)io::asString(io::member(corpus, at, "fnv1a64"), at["fnv1a64"]);
    (void)analysis::partialCount(io::member(corpus, at, "units"), at["units"]);
}

Shard readShard(const json& shard, const JsonAt& at) {
    io::expectObject(shard, at);
    const auto count = io::asInt(io::member(shard, at, "count"), at["count"], 1,
                                 static_cast<std::int64_t>(kMaxShards));
    const auto index = io::asInt(io::member(shard, at, "index"), at["index"], 0, count - 1);
    return {static_cast<std::size_t>(index), static_cast<std::size_t>(count)};
}

std::string shardText(const Shard& s) {
    return std::to_string(s.index) + "/" + std::to_string(s.count);
}

}  // namespace

Shard parseShard(std::string_view text) {
    const auto slash = text.find('/');
    std::size_t k = 0;
    std::size_t n = 0;
    const auto number = [](std::string_view s, std::size_t& v) {
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        return !s.empty() && ec == std::errc() && end == s.data() + s.size();
    };
    if (slash == std::string_view::npos || !number(text.substr(0, slash), k) ||
        !number(text.substr(slash + 1), n) || n == 0 || n > kMaxShards || k >= n) {
        throw InvalidArgument("--shard: expected K/N with 0 <= K < N <= " +
                              std::to_string(kMaxShards) + ", found '" + std::string(text) + "'");
    }
    return {k, n};
}

std::string PartialResult::modelPath() const {
    return model.at("path").get<std::string>();
}

std::string PartialResult::corpusPath() const {
    return corpus.at("path").get<std::string>();
}

analysis::PartialShape PartialResult::shape() const {
    return {model.at("layers").get<int>(), model.at("heads").get<int>(),
            model.at("max_tokens").get<int>()};
}

json modelFingerprint(const model::Model& m, const std::string& path) {
    const model::ModelSpec& s = m.spec;
    return {{"path", path},
            {"name", baseName(path)},
            {"layers", s.nLayers},
            {"heads", s.nHeads},
            {"type", s.modelType},
            {"kv_heads", s.nKvHeads},
            {"d_model", s.dModel},
            {"d_ffn", s.dFfn},
            {"vocab", s.vocabSize},
            {"max_tokens", s.maxTokens()},
            {"parameters", m.parameterCount},
            {"dtypes", m.storedDtypes}};
}

json corpusFingerprint(const std::filesystem::path& path, std::int64_t units) {
    std::uint64_t bytes = 0;
    const std::uint64_t hash = fnv1a64(path, &bytes);
    return {{"path", path.string()},
            {"name", baseName(path.string())},
            {"bytes", bytes},
            {"fnv1a64", hex64(hash)},
            {"units", units}};
}

void writePartial(const std::filesystem::path& path, const PartialResult& part) {
    const json doc = {{"format", kPartialFormat},
                      {"version", kPartialVersion},
                      {"command", part.command},
                      {"options", part.options},
                      {"model", part.model},
                      {"corpus", part.corpus},
                      {"shard", {{"index", part.shard.index}, {"count", part.shard.count}}},
                      {"totals", part.totals},
                      {"state", part.state}};
    std::string text;
    try {
        text = doc.dump() + "\n";  // doubles as the shortest text that reads back the same
    } catch (const json::exception& e) {
        throw InvalidArgument(path.string() + ": cannot write the partial result: " + e.what());
    }
    writeOutputFile(path, text);
}

PartialResult parsePartial(std::string_view text, const std::string& file) {
    const json doc = io::parseJson(text, file);
    const JsonAt at{file};
    io::expectObject(doc, at);
    if (io::asString(io::member(doc, at, "format"), at["format"]) != kPartialFormat) {
        io::failAt(at["format"], "expected \"" + std::string(kPartialFormat) + "\"");
    }
    const auto version = io::asInt(io::member(doc, at, "version"), at["version"]);
    if (version != kPartialVersion) {
        io::failAt(at["version"], "version " + std::to_string(version) +
                                      "; this attnscope-cli reads version " +
                                      std::to_string(kPartialVersion));
    }
    PartialResult part;
    part.file = file;
    part.command = io::asString(io::member(doc, at, "command"), at["command"]);
    part.options = io::member(doc, at, "options");
    io::expectObject(part.options, at["options"]);
    part.model = io::member(doc, at, "model");
    checkModel(part.model, at["model"]);
    part.corpus = io::member(doc, at, "corpus");
    checkCorpus(part.corpus, at["corpus"]);
    part.shard = readShard(io::member(doc, at, "shard"), at["shard"]);
    part.totals = io::member(doc, at, "totals");
    io::expectObject(part.totals, at["totals"]);
    part.state = io::member(doc, at, "state");
    io::expectObject(part.state, at["state"]);
    return part;
}

PartialResult readPartial(const std::filesystem::path& path) {
    return parsePartial(io::readWholeFile(path, io::kMaxJsonFileBytes, "a partial result"),
                        path.string());
}

void checkParts(std::vector<PartialResult>& parts) {
    if (parts.empty()) {
        throw InvalidArgument("merge: no partial results given");
    }
    const PartialResult& first = parts.front();
    const auto differs = [&](const PartialResult& p, const char* what, const json& mine,
                             const json& theirs) {
        if (mine != theirs) {
            throw InvalidArgument(p.file + ": " + what + " differs from " + first.file +
                                  "'s: " + firstDifference(mine, theirs, "$"));
        }
    };
    for (const PartialResult& p : parts) {
        differs(p, "the command", p.command, first.command);
        differs(p, "the options", p.options, first.options);
        differs(p, "the model", withoutPath(p.model), withoutPath(first.model));
        differs(p, "the corpus", withoutPath(p.corpus), withoutPath(first.corpus));
        differs(p, "the shard count", p.shard.count, first.shard.count);
        differs(p, "the corpus totals", p.totals, first.totals);
    }
    std::stable_sort(parts.begin(), parts.end(),
                     [](const auto& a, const auto& b) { return a.shard.index < b.shard.index; });
    for (std::size_t i = 1; i < parts.size(); ++i) {
        if (parts[i].shard.index == parts[i - 1].shard.index) {
            throw InvalidArgument(parts[i].file + ": shard " + shardText(parts[i].shard) +
                                  " again (also " + parts[i - 1].file + ")");
        }
    }
    for (std::size_t k = 0; k < first.shard.count; ++k) {
        if (k >= parts.size() || parts[k].shard.index != k) {
            throw InvalidArgument(
                parts.front().file + ": shard " + shardText({k, parts.front().shard.count}) +
                " is missing: every shard 0.." + std::to_string(parts.front().shard.count - 1) +
                " must be given once");
        }
    }
}

}  // namespace attnscope::exporting
