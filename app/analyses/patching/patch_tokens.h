// How a patching run picks what its metric reads, the same in the app's Activation patching tab
// and in attnscope-cli patch (compiled into both, so the two cannot drift apart): the metric
// position by default (a masked LM's first [MASK] in the clean prompt, else the last token) and
// the target and distractor left unasked (the clean run's top prediction at the position; the
// corrupted run's top there, or the clean run's first or second when both agree). No Qt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attnscope/analysis/activation_patching.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"

namespace attnscope::app {

// A masked LM is asked at its first [MASK]; a causal LM after its last token.
int defaultPatchPosition(const model::Model& m, const std::vector<std::int32_t>& clean);

// Sets `setup`'s target and distractor: each as asked, else by the rule above (one pass over
// each prompt under `options`, only when one of the two is not asked).
void choosePatchTokens(const model::Model& m, analysis::PatchingSetup& setup,
                       std::optional<std::int32_t> target, std::optional<std::int32_t> distractor,
                       const forward::ForwardOptions& options);

// The id of vocabulary piece `piece` (as `attnscope-cli tokenize` prints it); nullopt when the
// model has no vocabulary or not that piece.
std::optional<std::int32_t> vocabularyId(const model::Model& m, const std::string& piece);

}  // namespace attnscope::app
