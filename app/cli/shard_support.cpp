#include "cli/shard_support.h"

#include <filesystem>
#include <iostream>

#include "attnscope/base/error.h"
#include "cli/cli_checks.h"

namespace attnscope::cli {

namespace {

bool endsWith(const std::string& s, std::string_view tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

CLI::Option* addShardOption(CLI::App& command, std::string& shard, const std::string& unit) {
    return command.add_option(
        "--shard", shard,
        "K/N: run only shard K of N (0 <= K < N): the " + unit +
            " i (0-based, in file order, after --max-sentences where it applies) with i mod N == "
            "K. --out must then end in .part.json; `attnscope-cli merge` adds all N parts up into "
            "exactly the file one run writes");
}

CLI::Validator csvH5OrPartOutput() {
    return CLI::Validator(
        [](const std::string& out) {
            const auto ext = std::filesystem::path(out).extension();
            return isH5Path(out) || ext == ".csv" || isPartPath(out)
                       ? std::string()
                       : std::string("--out must end in .csv or .h5 (.part.json with --shard)");
        },
        "");
}

bool isPartPath(const std::string& path) {
    return endsWith(path, exporting::kPartialExtension);
}

void checkShardOutput(const CLI::App& command, const std::string& shard, const std::string& out,
                      const std::vector<std::string>& excluded) {
    if (shard.empty()) {
        if (isPartPath(out)) {
            throw CLI::ValidationError("--out", "a .part.json output needs --shard K/N");
        }
        return;
    }
    try {
        (void)exporting::parseShard(shard);
    } catch (const Error& e) {
        throw CLI::ValidationError("--shard", e.what());
    }
    if (!isPartPath(out)) {
        throw CLI::ValidationError("--out", "with --shard, --out must end in .part.json, not " +
                                                (out.empty() ? std::string("empty") : out));
    }
    for (const std::string& name : excluded) {
        if (command.count(name) > 0) {
            throw CLI::ValidationError(name, "cannot be combined with --shard");
        }
    }
}

std::optional<exporting::Shard> shardOf(const std::string& shard) {
    if (shard.empty()) {
        return std::nullopt;
    }
    return exporting::parseShard(shard);
}

void writePart(const std::string& out, const exporting::PartialResult& part, std::size_t units,
               const std::string& unit) {
    exporting::writePartial(out, part);
    std::cerr << "attnscope-cli: wrote shard " << part.shard.index << "/" << part.shard.count
              << " (" << units << " " << unit << ") to " << out << "\n";
}

void checkMergedCsvOrH5(const std::string& out, const std::string& command) {
    if (!isH5Path(out) && std::filesystem::path(out).extension() != ".csv") {
        throw InvalidArgument("--out: " + out + ": " + command + " writes .csv or .h5");
    }
}

}  // namespace attnscope::cli
