// attnscope-cli merge PART... --out FILE (issue 35): reads the partial results that
// `deps|coref|positions|saturation ... --shard K/N` wrote (export/partial_result.h), refuses parts
// that do not belong to one job or miss a shard (one line naming the file and the reason), merges
// their accumulators in shard order and writes --out with the command's own writer, so the file is
// byte for byte the one a single run writes. Each command brings its own merger.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "attnscope/export/partial_result.h"

namespace CLI {
class App;
}

namespace attnscope::cli {

struct MergeArgs {
    std::vector<std::string> parts;
    std::string out;
};

// Merges checked parts, sorted by shard (0..N-1, all from one job), into `out`; returns the exit
// code.
using PartMerger =
    std::function<int(const std::vector<exporting::PartialResult>& parts, const std::string& out)>;

CLI::App* addMergeCommand(CLI::App& app, MergeArgs& args);

// `mergers` by command name ("deps", ...).
int runMerge(const MergeArgs& args, const std::map<std::string, PartMerger>& mergers);

}  // namespace attnscope::cli
