// Partial results of a corpus job split into shards (issue 35): `attnscope-cli deps|coref|
// positions|saturation ... --shard K/N --out part.part.json` writes one, `attnscope-cli merge`
// reads all N and writes exactly (byte for byte) the file one run over the whole corpus writes.
//
// The shard rule: the corpus' units (sentences after --max-sentences; coref: the windows cut
// from the whole corpus) are numbered 0, 1, 2, ... in file order, and unit i belongs to shard
// i mod N. It is the rule the thread shares already follow; since every accumulated value is an
// integer count, a maximum or an exact sum, any rule would merge exactly, and this one balances
// long and short stretches of a corpus.
//
// A part file is one JSON object, version kPartialVersion:
//   {"format": "attnscope-partial", "version": 1, "command": "deps",
//    "options": {...every option that affects the numbers or the output file...},
//    "model":  {"path": as given, "name": folder or file name, "layers": L, "heads": H,
//               ...a cheap fingerprint: type, sizes, parameter count, stored dtypes},
//    "corpus": {"path": as given, "name": file name, "bytes": n, "fnv1a64": "hex", "units": n},
//    "shard":  {"index": K, "count": N},
//    "totals": {...corpus-wide values, the same in every shard...},
//    "state":  {...the accumulator, analysis/partial_state.h}}
// Parts merge when everything but the paths, the shard index and the state is equal; the merged
// output names shard 0's paths (the single run writes the paths it was given into .h5 files).
//
// Errors: FormatError "<file>: <JSON path>: <reason>" for a malformed or hostile part,
// InvalidArgument "<file>: <reason>" for parts that do not belong together. Pure functions
// apart from the file reads and writes; any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnscope/analysis/partial_state.h"
#include "attnscope/model/model.h"

namespace attnscope::exporting {

inline constexpr int kPartialVersion = 1;
inline constexpr std::string_view kPartialFormat = "attnscope-partial";
inline constexpr std::string_view kPartialExtension = ".part.json";
// More shards than this would be more processes than any corpus has sentences to spare.
inline constexpr std::size_t kMaxShards = std::size_t{1} << 16;

struct Shard {
    std::size_t index = 0;
    std::size_t count = 1;

    // The shard rule above.
    bool owns(std::size_t unit) const { return unit % count == index; }
};

// "K/N" with 0 <= K < N <= kMaxShards; InvalidArgument "--shard: ..." otherwise.
Shard parseShard(std::string_view text);

struct PartialResult {
    std::string file;  // where it was read from, for messages; empty when written
    std::string command;
    nlohmann::json options = nlohmann::json::object();
    nlohmann::json model = nlohmann::json::object();   // modelFingerprint
    nlohmann::json corpus = nlohmann::json::object();  // corpusFingerprint
    Shard shard;
    nlohmann::json totals = nlohmann::json::object();
    nlohmann::json state = nlohmann::json::object();

    std::string modelPath() const;
    std::string corpusPath() const;
    // The checked layers x heads of the model section.
    analysis::PartialShape shape() const;
};

// Name, path, layers, heads, type, sizes, parameter count and stored dtypes of a loaded model.
nlohmann::json modelFingerprint(const model::Model& model, const std::string& path);
// Path, name, size in bytes and FNV-1a 64 hash of the corpus file (read once more), and `units`.
nlohmann::json corpusFingerprint(const std::filesystem::path& path, std::int64_t units);

// Writes the part (atomically, output_file.h).
void writePartial(const std::filesystem::path& path, const PartialResult& part);

// Parses and checks the envelope (format, version, types, shard, model shape); the state is
// left for the command's reader (partial_state.h). FormatError as described above.
PartialResult parsePartial(std::string_view text, const std::string& file);
PartialResult readPartial(const std::filesystem::path& path);

// Checks that the parts belong to one job (same command, version, options, model, corpus,
// totals and shard count), that no shard index repeats and none of 0..N-1 is missing, and sorts
// them by shard index. InvalidArgument naming the file and the first difference.
void checkParts(std::vector<PartialResult>& parts);

}  // namespace attnscope::exporting
