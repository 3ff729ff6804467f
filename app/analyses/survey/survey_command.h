// attnscope-cli survey: what every head does over a corpus (rules S1–S12 in
// analysis/head_survey.h): Clark's surface statistics, entropy, the TransformerLens detectors,
// the repeated-token probe (causal models), sinks, Voita's positional and rare-word heads, and
// the head-to-head distances with their MDS map. Sentences are tokenized with the model's
// tokenizer; those longer than its positions are left out and counted. Runs on as many threads
// as asked with a progress bar on stderr; Ctrl+C stops it without writing anything. Writes the
// table (.csv) or the arrays (.h5, survey_export.h) and prints a per-layer summary and the top
// heads of each kind.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace attnscope::cli {

struct SurveyArgs {
    std::string modelDir;
    std::string corpus;  // .txt (one sentence a line) or .conllu
    std::string out;     // .csv or .h5
    std::optional<int> maxSentences;
    int threads = 2;
    bool noBatch = false;  // --no-batch: each sentence's products alone
    int probeRepeats = 4;
    int probeLength = 10;
    std::uint64_t probeSeed = 0;
    double sinkEps = 0.3;
    int rareTop = 500;
    double positionalThreshold = 0.9;
};

CLI::App* addSurveyCommand(CLI::App& app, SurveyArgs& args);
int runSurvey(const SurveyArgs& args);

}  // namespace attnscope::cli
