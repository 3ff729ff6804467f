// attnscope-cli lens: the logit lens (issue 34; analysis/logit_lens.h) of one sentence — what
// the model would predict from the residual stream after every layer. Prints the familiar
// picture: one line per stage (the embeddings, then each layer), one column per position, each
// cell the top token; with --position, that position's stages in full (top-k, the target's
// probability and rank, KL to the final distribution). The target is --target / --target-id
// for every position, else each position's final prediction. --out writes every stage ×
// position × rank as CSV (stage, after, position, rank, id, token, probability, target_id,
// target_probability, target_rank, kl_from_final). Usage errors exit 2; data errors throw
// attnscope::Error (exit 1). No Qt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cli/sentence_input.h"

namespace CLI {
class App;
}

namespace attnscope::cli {

struct LensArgs {
    SentenceArgs sentence;
    std::optional<int> position;
    std::optional<std::string> target;
    std::optional<std::int64_t> targetId;
    int top = 5;
    std::string out;
};

CLI::App* addLensCommand(CLI::App& app, LensArgs& args);

int runLens(const LensArgs& args);

}  // namespace attnscope::cli
