// attnscope-cli predict: what the model predicts at each position of one sentence — the top-k
// next tokens of a causal LM, or the top-k fillers of [MASK] / <mask> for a masked LM; for an
// encoder-decoder model the next target token at each decoder row (seq2seq_command.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

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
    TargetArgs target;  // encoder-decoder models: predictions along the target
};

CLI::App* addPredictCommand(CLI::App& app, PredictArgs& args);
int runPredict(const PredictArgs& args);

}  // namespace attnscope::cli
