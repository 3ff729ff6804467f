// attnscope-cli coref: scores every head of a model on the coreference annotations (CorefUD
// `Entity=`) of a CoNLL-U treebank, Clark et al. 2019 §4.3 (rules in
// analysis/coref_scoring.h), with the paper's three baselines, on as many threads as asked, with
// a progress bar on stderr; Ctrl+C stops it without writing anything. Writes the per-head table
// (.csv) or the full results (.h5) and prints the best head of each mention type. With
// --shard K/N it scores only the windows i with i mod N == K (windows are cut from the whole
// corpus first) and writes a partial result that `attnscope-cli merge` adds up.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "attnscope/export/partial_result.h"

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
    bool noBatch = false;  // --no-batch: each sentence's products alone
    std::string out;
    std::string dump;   // optional attention dump of every window, for tests/reference
    std::string shard;  // "K/N": this shard's windows only, --out a .part.json
};

CLI::App* addCorefCommand(CLI::App& app, CorefArgs& args);
int runCoref(const CorefArgs& args);
// The PartMerger of coref (cli/merge_command.h).
int mergeCoref(const std::vector<exporting::PartialResult>& parts, const std::string& out);

}  // namespace attnscope::cli
