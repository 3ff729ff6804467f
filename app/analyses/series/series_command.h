// attnscope-cli series: per-head statistics across training checkpoints (issue 33;
// analysis/checkpoint_series.h). PATH… is one folder of step<N> / checkpoint-<N> subfolders
// (Pythia's revisions downloaded side by side), or two or more model folders or GGUF files in
// the order given. Every checkpoint runs the same token ids — the text through the first
// checkpoint's tokenizer, --token-ids, or each sentence of --sentences — and must have the
// first one's layers, heads and vocabulary. Causal models also run the induction probe (the
// survey's S7) on sequences drawn once from the first checkpoint (--probe-repeats, --probe-length,
// --probe-seed). Prints one line per checkpoint × head; --out writes the table as CSV
// (checkpoint, step, layer, head, mean_entropy, max_abs_logit, sink_mass, prev_token,
// one_hot_share, induction_probe; nan for bidirectional models). Usage errors exit 2; data errors
// throw attnscope::Error (exit 1).
// No Qt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/sentence_input.h"

namespace CLI {
class App;
}

namespace attnscope::cli {

struct SeriesArgs {
    std::vector<std::string> paths;
    std::optional<std::string> text;
    std::vector<std::int64_t> tokenIds;
    std::string sentencesFile;
    std::optional<int> maxSentences;
    std::string mask = "default";
    int probeRepeats = 4;  // the induction probe (analysis::InductionProbeOptions)
    int probeLength = 10;
    std::uint64_t probeSeed = 0;
    std::string out;  // .csv; empty: the table on stdout only
};

CLI::App* addSeriesCommand(CLI::App& app, SeriesArgs& args);

int runSeries(const SeriesArgs& args);

}  // namespace attnscope::cli
