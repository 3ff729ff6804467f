// attnscope-cli deps: scores every head of a model against the gold dependency relations of a
// CoNLL-U treebank (Clark et al. 2019; methods.md §1), on as many threads as asked, with a
// progress bar on stderr. Writes the relation table (.csv) or the full results (.h5).
#pragma once

#include <optional>
#include <string>
#include <vector>

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
    long minCount = 100;
    std::string out;
    std::string dump;  // optional attention dump for independent re-scoring
};

CLI::App* addDepsCommand(CLI::App& app, DepsArgs& args);
int runDeps(const DepsArgs& args);

}  // namespace attnscope::cli
