// What the corpus commands share to split a job across processes or machines (issue 35):
// `--shard K/N` runs only the units (sentences, coref windows) i with i mod N == K and writes a
// partial result (export/partial_result.h) to --out, which must then end in .part.json;
// `attnscope-cli merge` (merge_command.h) adds the N parts up into exactly the file one run
// writes. Usage errors are CLI11 exceptions (exit 2).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "attnscope/export/partial_result.h"

namespace attnscope::cli {

// --shard K/N on `command`; `unit` names what is split ("sentences", "windows") in the help.
CLI::Option* addShardOption(CLI::App& command, std::string& shard, const std::string& unit);

// An --out path of a command that writes a table or arrays, or a part with --shard: it must end
// in .csv, .h5 or .part.json (which one goes with --shard is checkShardOutput's).
CLI::Validator csvH5OrPartOutput();

bool isPartPath(const std::string& path);

// merge's --out for `command`, which writes .csv or .h5; InvalidArgument otherwise.
void checkMergedCsvOrH5(const std::string& out, const std::string& command);

// After parsing: --shard given iff --out ends in .part.json; the options `excluded` (e.g.
// "--dump") must not be given with --shard. Throws CLI::ValidationError.
void checkShardOutput(const CLI::App& command, const std::string& shard, const std::string& out,
                      const std::vector<std::string>& excluded = {});

// The parsed --shard; nullopt when it was not given.
std::optional<exporting::Shard> shardOf(const std::string& shard);

// The units of `all` the shard owns, in order.
template <class T>
std::vector<T> shardUnits(const std::vector<T>& all, const exporting::Shard& shard) {
    std::vector<T> out;
    out.reserve(all.size() / shard.count + 1);
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (shard.owns(i)) {
            out.push_back(all[i]);
        }
    }
    return out;
}

// Writes the part and says so on stderr ("attnscope-cli: wrote shard 2/8 (120 sentences) to
// part2.part.json").
void writePart(const std::string& out, const exporting::PartialResult& part, std::size_t units,
               const std::string& unit);

}  // namespace attnscope::cli
