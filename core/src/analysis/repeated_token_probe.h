// The repeated-random-token probe (methods.md §11.2; the head survey's S7), shared by the survey
// (head_survey_corpus.cpp) and the checkpoint series (checkpoint_series.cpp) so both read the
// same BOS, the same stripe and the same mean. The sequences themselves are probeTokens's
// (head_survey.h). Internal to attnscope_core; pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attnscope/base/cancel.h"
#include "attnscope/model/model.h"

namespace attnscope::analysis::detail {

// S7's BOS: `option`, else the model's vocabulary's BOS role (the loader keeps no config
// bos_token_id), else `fallback`. InvalidArgument, prefixed with `what`, when it is outside
// the vocabulary.
std::int32_t probeBosId(const model::Model& model, std::optional<std::int32_t> option,
                        std::int32_t fallback, const std::string& what);

// InvalidArgument, prefixed with `what`, unless [BOS, r_1..r_N, r_1..r_N] fits the model's
// positions.
void checkProbeFits(const model::Model& model, int length, const std::string& what);

// S7 score of one repeated sequence `seq` (length N), per head [layer·head]: the mean over
// i = N+1..2N of A[i][i−N+1] in the model's default-mask pass. The stripe's first two cells of
// ARENA's offset diagonal (i = N−1, N) are no induction positions and are left out (§11.2).
std::vector<double> probeStripe(const model::Model& model, const std::vector<std::int32_t>& seq,
                                int length, const CancelToken& cancel);

// The mean of the repeats' stripes per head, summed in repeat order (so the result does not
// depend on which thread ran which repeat). `stripes` must not be empty.
std::vector<double> meanStripe(const std::vector<std::vector<double>>& stripes);

}  // namespace attnscope::analysis::detail
