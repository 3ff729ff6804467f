// attnscope-cli predict: what the model predicts at each position of one sentence — the top-k
// next tokens of a causal LM, or the top-k fillers of [MASK] / <mask> for a masked LM.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sentence_input.h"

namespace CLI {
class App;
}

namespace attnscope::cli {

struct PredictArgs {
    SentenceArgs sentence;
    std::vector<int> positions;  // empty: every position (causal) or the mask tokens (MLM)
    int top = 5;
    std::optional<std::string> csv;
};

CLI::App* addPredictCommand(CLI::App& app, PredictArgs& args);
int runPredict(const PredictArgs& args);

}  // namespace attnscope::cli
