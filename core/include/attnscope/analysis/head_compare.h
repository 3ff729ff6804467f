// Comparing two heads' attention maps: the Jensen–Shannon divergence of each query row, as in
// Clark et al.'s head_distances.py (methods.md §1.6): both rows are smoothed with 0.001/n to
// avoid log 0, the divergence (no square root, nats) is taken per row and summed over rows.
// Fully masked rows (in either map) count 0. Pure functions; thread-safe.
#pragma once

#include <vector>

#include "attnscope/base/tensor.h"

namespace attnscope::analysis {

struct HeadComparison {
    std::vector<float> rowDivergence;  // [nQueries] JS divergence of each query row, nats
    float totalDivergence = 0;         // sum over rows
    Matrix difference;                 // [nQueries, nKeys] a − b, for the diverging heatmap
};

// a, b: [nQueries, nKeys] attention maps of the same sentence. InvalidArgument if shapes differ.
HeadComparison compareHeads(const Eigen::Ref<const Matrix>& a, const Eigen::Ref<const Matrix>& b);

}  // namespace attnscope::analysis
