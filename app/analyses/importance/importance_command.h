// attnscope-cli importance: how much the loss of a model on a corpus grows when each head (or
// key/value group) alone is ablated, and Michel et al.'s pruning curve (rules in
// analysis/head_importance.h), on as many threads as asked, with a progress bar on stderr;
// Ctrl+C stops it without writing anything. Writes the table (.csv) or the arrays (.h5), with a
// masked LM's masked targets, and prints the clean loss, the most and least important units and
// the curve. The --out path is checked before any work.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace attnscope::cli {

struct ImportanceArgs {
    std::string modelDir;
    std::string corpus;  // .txt (one sentence a line) or .conllu
    std::string out;     // .csv or .h5
    std::string kind = "zero";
    bool kvGroup = false;
    std::optional<int> maxSentences;
    double maskFraction = 0.15;
    std::uint64_t seed = 0;
    int threads = 2;
    bool noBatch = false;  // --no-batch: each sentence's products alone
};

CLI::App* addImportanceCommand(CLI::App& app, ImportanceArgs& args);
int runImportance(const ImportanceArgs& args);

}  // namespace attnscope::cli
