// attnscope-cli predict: what the model predicts at each position of one sentence — the top-k
// next tokens of a causal LM, or the top-k fillers of [MASK] / <mask> for a masked LM; for an
// encoder-decoder model the next target token at each decoder row (seq2seq_command.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "attnscope/export/csv_writer.h"
#include "attnscope/forward/prediction.h"
#include "cli/sentence_input.h"
#include "cli/seq2seq_input.h"

namespace CLI {
class App;
}

namespace attnscope::cli {

struct PredictArgs {
    SentenceArgs sentence;
    std::vector<int> positions;  // empty: every position (causal) or the mask tokens (MLM)
    int top = 5;
    std::optional<std::string> csv;
    TargetArgs target;       // encoder-decoder models: predictions along the target
    int continueTokens = 0;  // > 0: greedy continuation of that many tokens instead (causal LM)
};

CLI::App* addPredictCommand(CLI::App& app, PredictArgs& args);
int runPredict(const PredictArgs& args);

// What both predict paths share (the encoder-decoder one is runSeq2SeqPredict).

// `positions`, or every one of the `nTokens` when it is empty; throws InvalidArgument for one
// outside them ("... is outside the <what>'s N tokens").
std::vector<int> checkedPositions(std::vector<int> positions, int nTokens, const std::string& what);

// The top-k candidates of each position, printed under the position's line and kept as CSV rows.
class PredictionTable {
public:
    PredictionTable();
    // Prints the candidates of `pos` (whose token is `token`); `predicts` is "next" or "this".
    void add(int pos, const std::string& token, const std::string& predicts,
             const std::vector<forward::TokenPrediction>& top);
    // Writes the rows to `csv` when given, and says so on stderr.
    void write(const std::optional<std::string>& csv) const;

private:
    exporting::CsvWriter csv_;
};

}  // namespace attnscope::cli
