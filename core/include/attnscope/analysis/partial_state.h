// The accumulators of the corpus commands as JSON, for partial results of a corpus job split
// into shards (export/partial_result.h, `attnscope-cli --shard K/N` and `merge`, issue 35).
//
// Writing keeps every count: merging the restored accumulators of all shards, in shard order,
// gives exactly the accumulator one run over the whole corpus fills, since every value is an
// integer count, a maximum or (relative position, saturation) an exact sum (exact_sum.h), and
// none of these depends on the order of the additions.
//
// Reading trusts nothing in the JSON: the accumulator's shape (layers x heads) comes from the
// caller, who checked it against the model the part names; every array must have exactly the
// length that shape implies, every count must be an integer in [0, kMaxPartialCount] and obey
// the accumulator's own invariants (correct + no prediction <= total, ...). Failures throw
// FormatError "<file>: $.state.<path>: <reason>" (io/json_access.h). Pure functions; any
// thread.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "attnscope/analysis/coref_scoring.h"
#include "attnscope/analysis/dependency_accumulator.h"
#include "attnscope/analysis/relative_position.h"
#include "attnscope/analysis/saturation.h"
#include "attnscope/io/json_access.h"

namespace attnscope::analysis {

// The largest count a part may hold: 2^46, so that the sum over kMaxShards (2^16) parts cannot
// overflow int64. A real corpus stays far below (2^46 words is ~10^14).
inline constexpr std::int64_t kMaxPartialCount = std::int64_t{1} << 46;

// The shape a part's state must have, from its (checked) model section.
struct PartialShape {
    int layers = 0;
    int heads = 0;
    int maxTokens = 0;  // the model's positions: offsets seen are below it
};

nlohmann::json dependencyState(const DependencyAccumulator& acc);
DependencyAccumulator dependencyFromState(const nlohmann::json& state, const io::JsonAt& at,
                                          PartialShape shape, const ScoreOptions& options);

// The head, baseline and per-window counts (windows, scoredMentions, mentionsWithoutToken);
// the corpus-wide counts of CorefCounts are the same in every shard and travel in the part's
// totals instead (corefTotals).
nlohmann::json corefState(const CorefAccumulator& acc);
CorefAccumulator corefFromState(const nlohmann::json& state, const io::JsonAt& at,
                                PartialShape shape);
nlohmann::json corefTotals(const CorefCounts& counts);
// Sets the corpus-wide fields of `counts` from corefTotals' JSON.
void applyCorefTotals(const nlohmann::json& totals, const io::JsonAt& at, CorefCounts& counts);

// Every head's offset bins ([exact sum as ExactSum::toText, queries, allowed, argmax]), its
// exact confidence sum and counts.
nlohmann::json positionsState(const ModelPositions& positions);
ModelPositions positionsFromState(const nlohmann::json& state, const io::JsonAt& at,
                                  PartialShape shape, const RelativePositionOptions& options);

// The passes pooled and every head's [rows, one-hot rows, exact entropy sum, exact row-max
// |logit| sum, then the three maxima as float bit patterns (so infinities survive JSON)].
nlohmann::json saturationState(const SaturationAccumulator& acc);
SaturationAccumulator saturationFromState(const nlohmann::json& state, const io::JsonAt& at,
                                          PartialShape shape);

// A count: an integer in [0, kMaxPartialCount].
std::int64_t partialCount(const nlohmann::json& value, const io::JsonAt& at);

}  // namespace attnscope::analysis
