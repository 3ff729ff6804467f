#include "cli/merge_command.h"

#include <CLI/CLI.hpp>

#include "attnscope/base/error.h"
#include "cli/cli_checks.h"

namespace attnscope::cli {

CLI::App* addMergeCommand(CLI::App& app, MergeArgs& args) {
    auto* merge = app.add_subcommand(
        "merge",
        "Add up the partial results (.part.json) of a corpus job split with --shard K/N into the "
        "file one run writes (deps, coref, saturation: .csv or .h5; positions: .csv)");
    merge->add_option("PARTS", args.parts, "Every shard's .part.json, 0..N-1, in any order")
        ->required();
    merge->add_option("--out", args.out, "The merged result, as the command's --out (or --csv)")
        ->required();
    return merge;
}

int runMerge(const MergeArgs& args, const std::map<std::string, PartMerger>& mergers) {
    checkOutput("--out", args.out);
    std::vector<exporting::PartialResult> parts;
    parts.reserve(args.parts.size());
    for (const std::string& path : args.parts) {
        parts.push_back(exporting::readPartial(path));
        const auto merger = mergers.find(parts.back().command);
        if (merger == mergers.end()) {
            throw FormatError(path + ": $.command: '" + parts.back().command +
                              "' has no merge (deps, coref, positions, saturation)");
        }
    }
    exporting::checkParts(parts);
    return mergers.at(parts.front().command)(parts, args.out);
}

}  // namespace attnscope::cli
