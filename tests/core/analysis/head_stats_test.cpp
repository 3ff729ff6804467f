// Per-head statistics on a generated checkpoint, checked against direct computation.
#include "attnscope/analysis/head_stats.h"

#include <cmath>

#include <gtest/gtest.h>

#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"

namespace attnscope::analysis {
namespace {

const std::filesystem::path kCheckpoints =
    std::filesystem::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

TEST(HeadStats, CausalModelStatistics) {
    const auto m = model::loadModel(kCheckpoints / "gpt2_f32");
    const auto r = forward::runForward(*m, {{1, 5, 9, 14, 3, 7}, {}});
    const auto stats = headStats(r);
    ASSERT_EQ(stats.size(), static_cast<std::size_t>(r.nLayers * r.nHeads));
    const HeadStats& s = stats[4];
    EXPECT_EQ(s.head, (HeadId{1, 1}));
    // Row 0 of a causal map sees one key: weight 1, entropy 0, no normalized entropy.
    EXPECT_FLOAT_EQ(s.maxWeight, 1.0f);
    double h = 0;
    for (int q = 0; q < r.nTokens; ++q) {
        h += r.entropyOf(s.head)[q];
    }
    EXPECT_NEAR(s.meanEntropy, h / r.nTokens, 1e-6);
    EXPECT_GT(s.meanNormalizedEntropy, 0.0f);
    EXPECT_LE(s.meanNormalizedEntropy, 1.0f + 1e-6f);
    // The largest |logit| must come from an allowed (lower-triangle) cell.
    float expected = 0;
    for (int q = 0; q < r.nTokens; ++q) {
        for (int k = 0; k <= q; ++k) {
            expected = std::max(expected, std::abs(r.logitsOf(s.head)(q, k)));
        }
    }
    EXPECT_EQ(s.maxAbsLogit, expected);
    const auto uniform = uniformEntropy(r);
    EXPECT_FLOAT_EQ(uniform[0], 0.0f);
    EXPECT_FLOAT_EQ(uniform[5], std::log(6.0f));
}

}  // namespace
}  // namespace attnscope::analysis
