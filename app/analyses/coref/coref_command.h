// attnscope-cli coref: scores every head of a model on the coreference annotations (CorefUD
// `Entity=`) of a CoNLL-U treebank, Clark et al. 2019 §4.3 (rules in
// analysis/coref_scoring.h), with the paper's three baselines, on as many threads as asked, with
// a progress bar on stderr; Ctrl+C stops it without writing anything. Writes the per-head table
// (.csv) or the full results (.h5) and prints the best head of each mention type.
#pragma once

#include <cstddef>
#include <string>

namespace CLI {
class App;
}

namespace attnscope::cli {

struct CorefArgs {
    std::string modelDir;
    std::string treebank;
    std::size_t maxTokens = 128;  // window limit (Clark et al.); 0 = the model's positions
    std::string from = "mean";
    std::string mwt = "split";
    bool strict = false;
    int threads = 2;
    std::string out;
    std::string dump;  // optional attention dump of every window, for tests/reference
};

CLI::App* addCorefCommand(CLI::App& app, CorefArgs& args);
int runCoref(const CorefArgs& args);

}  // namespace attnscope::cli
