// Per-head summary statistics of one forward pass, for the model grid, the entropy charts and
// CSV export (methods.md §8.3). Fully masked query rows are left out of every statistic.
// Pure functions; thread-safe.
#pragma once

#include <vector>

#include "attnscope/base/head_id.h"
#include "attnscope/forward/forward_result.h"

namespace attnscope::analysis {

struct HeadStats {
    HeadId head;
    float meanEntropy = 0;  // nats, mean over query rows
    float meanNormalizedEntropy =
        0;                    // mean of H_q / ln(allowed keys of q); rows with one key skipped
    float maxWeight = 0;      // largest attention weight anywhere in the map
    float meanMaxWeight = 0;  // mean over rows of the row maximum (Voita's confidence)
    float maxAbsLogit = 0;    // largest |scaled logit| over allowed cells (ViT-22B)
};

// One entry per head, in [layer][head] order.
std::vector<HeadStats> headStats(const forward::ForwardResult& result);

HeadStats headStatsOf(const forward::ForwardResult& result, HeadId head);

// ln(number of allowed keys) for every query row of `layer`'s mask: the entropy of a uniform
// row, the reference line of the entropy charts. [nTokens]
std::vector<float> uniformEntropy(const forward::ForwardResult& result, int layer = 0);

}  // namespace attnscope::analysis
