// attnscope-cli dla: direct logit attribution (issue 34; analysis/logit_attribution.h) at one
// position of one sentence: which heads, MLPs and embeddings write the logit of a target token,
// or of target minus distractor. Target and distractor are vocabulary pieces (--target,
// --distractor) or ids (--target-id, --distractor-id); without a target, the model's own top
// prediction at the position. Prints the terms by size and their sum against the logit;
// --out writes every term as CSV (term, kind, layer, head, value). Usage errors exit 2; data
// errors throw attnscope::Error (exit 1). No Qt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cli/sentence_input.h"

namespace CLI {
class App;
}

namespace attnscope::cli {

struct DlaArgs {
    SentenceArgs sentence;
    std::optional<int> position;  // default: the last token
    std::optional<std::string> target;
    std::optional<std::int64_t> targetId;
    std::optional<std::string> distractor;
    std::optional<std::int64_t> distractorId;
    int top = 12;
    std::string out;
};

CLI::App* addDlaCommand(CLI::App& app, DlaArgs& args);

int runDla(const DlaArgs& args);

}  // namespace attnscope::cli
