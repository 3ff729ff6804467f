// Token-level attention → word-level attention (methods.md §1.1, Clark et al. 2019).
//
//   W[a][b] = AGG_{i ∈ tok(a)} Σ_{j ∈ tok(b)} A[i][j]
//
// Attention TO a unit is the sum over its tokens (always). Attention FROM a unit combines its
// tokens' rows by AGG:
//   * Mean  — the paper's rule, the default: rows still sum to 1.
//   * First — Clark's released code (`get_word_word_attention` is called without `mode`, so
//             `extract_attention.py --word_level` uses "first"): the first token's row.
//   * Max   — element-wise maximum, then the row is divided by its sum so it sums to 1 again.
// Units are those of a WordAlignment (special tokens included), so rows keep summing to 1; they
// must cover every token exactly once. A row that is all zeros (a fully masked query) stays all
// zeros in every mode rather than turning into NaN.
// Throws InvalidArgument for a map that is not square (one set of units) or units that do not
// partition its tokens. Pure functions; thread-safe.
#pragma once

#include <string_view>
#include <vector>

#include "attnscope/analysis/word_alignment.h"
#include "attnscope/base/tensor.h"

namespace attnscope::analysis {

enum class FromAggregation { Mean, First, Max };

// "mean", "first", "max".
std::string_view aggregationName(FromAggregation agg);

// tokenAttention: [nTokens, nTokens], row = query. unitTokens: [nUnits] token indices of each
// unit. Returns [nUnits, nUnits], row = query unit.
Matrix wordAttention(const Eigen::Ref<const Matrix>& tokenAttention,
                     const std::vector<std::vector<int>>& unitTokens,
                     FromAggregation agg = FromAggregation::Mean);

Matrix wordAttention(const Eigen::Ref<const Matrix>& tokenAttention, const WordAlignment& alignment,
                     FromAggregation agg = FromAggregation::Mean);

// Cross-attention (rows: target tokens, columns: source tokens) with each side's own units:
// rowUnits partition the rows, columnUnits the columns. Returns [rowUnits, columnUnits].
Matrix wordAttention(const Eigen::Ref<const Matrix>& tokenAttention,
                     const std::vector<std::vector<int>>& rowUnits,
                     const std::vector<std::vector<int>>& columnUnits,
                     FromAggregation agg = FromAggregation::Mean);

}  // namespace attnscope::analysis
