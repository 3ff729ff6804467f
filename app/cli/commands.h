// The subcommands of attnscope-cli. Each returns the process exit code: 0 success; it throws
// attnscope::Error for data errors, which main turns into exit code 1.
#pragma once

#include <optional>
#include <string>

#include "cli/sentence_input.h"
#include "cli/seq2seq_input.h"

namespace CLI {
class App;
}

namespace attnscope::cli {

struct AttentionArgs {
    SentenceArgs sentence;
    std::string out;
    int causalOffset = 0;  // with --mask causal
    std::optional<float> scale;
    TargetArgs target;  // encoder-decoder models
};

// The attention subcommand: the shared sentence options, --out, --causal-offset and --scale;
// for encoder-decoder models --target / --target-ids or --greedy N.
CLI::App* addAttentionCommand(CLI::App& app, AttentionArgs& args);

int runInfo(const std::string& modelDir);
int runTokenize(const std::string& modelDir, const std::string& text, bool addSpecial);
int runAttention(const AttentionArgs& args);

}  // namespace attnscope::cli
