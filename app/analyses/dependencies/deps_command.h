// attnscope-cli deps: scores every head of a model against the gold dependency relations of a
// CoNLL-U treebank (Clark et al. 2019; methods.md §1), on as many threads as asked, with a
// progress bar on stderr. Writes the relation table (.csv) or the full results (.h5); with
// --shard K/N, a partial result that `attnscope-cli merge` adds up (cli/shard_support.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "attnscope/export/partial_result.h"

namespace CLI {
class App;
}

namespace attnscope::cli {

struct DepsArgs {
    std::string modelDir;
    std::string treebank;
    std::vector<std::string> relations;  // empty: all
    bool mergeSubtypes = false;
    bool strict = false;  // stop at the first malformed sentence instead of skipping it
    std::string from = "mean";
    std::string mwt = "split";  // multiword tokens: "split" or "share"
    std::optional<int> maxSentences;
    int threads = 2;
    bool noBatch = false;  // --no-batch: each sentence's products alone
    long minCount = 100;
    std::string out;
    std::string dump;   // optional attention dump for independent re-scoring
    std::string shard;  // "K/N": this shard's sentences only, --out a .part.json
};

CLI::App* addDepsCommand(CLI::App& app, DepsArgs& args);
int runDeps(const DepsArgs& args);
// The PartMerger of deps (cli/merge_command.h).
int mergeDeps(const std::vector<exporting::PartialResult>& parts, const std::string& out);

}  // namespace attnscope::cli
