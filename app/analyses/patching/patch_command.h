// attnscope-cli patch: activation patching and path patching between a clean and a corrupted
// prompt of the same token length (issue 34; analysis/activation_patching.h). Prompts are texts
// (--clean, --corrupted) or ids (--clean-ids, --corrupted-ids). The metric reads target minus
// distractor at --position (default: the first [MASK] of a masked LM's clean prompt, else the
// last token); by default the target is the clean run's
// top prediction there and the distractor the corrupted run's, or the clean run's second when
// both runs agree. --by picks the sweep (head, head-position, resid, attn-out, mlp-out;
// repeatable), --direction denoise (default), noise or both; --path adds path patching
// (repeatable). Prints the endpoints and each sweep as a table; --out writes every run (.csv or
// .h5, patching_export.h). Usage errors exit 2; data errors throw attnscope::Error (exit 1).
// No Qt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace attnscope::cli {

struct PatchArgs {
    std::string modelDir;
    std::optional<std::string> clean;
    std::vector<std::int64_t> cleanIds;
    std::optional<std::string> corrupted;
    std::vector<std::int64_t> corruptedIds;
    std::string mask = "default";
    std::optional<int> position;
    std::optional<std::string> target;
    std::optional<std::int64_t> targetId;
    std::optional<std::string> distractor;
    std::optional<std::int64_t> distractorId;
    std::vector<std::string> by;
    std::string direction = "denoise";
    std::vector<std::string> paths;
    std::string out;
};

CLI::App* addPatchCommand(CLI::App& app, PatchArgs& args);

int runPatch(const PatchArgs& args);

}  // namespace attnscope::cli
