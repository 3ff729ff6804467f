// The saturation statistics' pooling (analysis/saturation.h) on passes of a fixture model: one
// pass equals its own rows; two pooled equal the merge of each alone; fully masked rows are
// left out; passes of another shape are refused. The numbers themselves are checked against
// the reference in what_if_parity_test.cpp.
#include "attnscope/analysis/saturation.h"

#include <cmath>

#include <gtest/gtest.h>

#include "attnscope/base/error.h"
#include "attnscope/forward/forward_pass.h"

namespace attnscope::analysis {
namespace {

const std::filesystem::path kCheckpoints =
    std::filesystem::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

TEST(Saturation, OnePassIsItsRows) {
    const auto m = model::loadModel(kCheckpoints / "gemma2_window_softcap_f32");
    forward::ForwardOptions o;
    o.recordUnnormed = true;
    const auto r = forward::runForward(*m, {{2, 9, 14, 7, 3, 11}, {}}, o);
    const auto stats = saturationStats(r);
    ASSERT_EQ(stats.size(), static_cast<std::size_t>(r.nLayers * r.nHeads));
    for (const HeadSaturation& s : stats) {
        const auto logit = r.rowsOf(r.rowMaxAbsLogit, s.head);
        const auto scaled = r.rowsOf(r.rowMaxAbsScaled, s.head);
        EXPECT_EQ(s.rows, r.nTokens);
        EXPECT_EQ(s.maxAbsLogit, logit.maxCoeff());
        EXPECT_EQ(s.maxAbsScaled, scaled.maxCoeff());
        // Gemma 2 caps: tanh(s / c) · c is below c and below the uncapped value.
        EXPECT_LT(s.maxAbsLogit, m->spec.attnSoftcap);
        EXPECT_LE(s.maxAbsLogit, s.maxAbsScaled);
        // No QK-norm: nothing happens between the unnormed and the scaled logits.
        EXPECT_EQ(s.maxAbsUnnormed, s.maxAbsScaled);
        EXPECT_NEAR(s.meanEntropy, r.entropyOf(s.head).mean(), 1e-6);
        EXPECT_EQ(s.maxAbsLogit,
                  r.maxAbsLogit[static_cast<std::size_t>(headIndex(s.head, r.nHeads))]);
    }
}

TEST(Saturation, PoolingEqualsMerging) {
    const auto m = model::loadModel(kCheckpoints / "qwen3_gqa_qknorm_f32");
    const auto a = forward::runForward(*m, {{1, 5, 9}, {}}, {});
    const auto b = forward::runForward(*m, {{1, 7, 2, 8, 4}, {}}, {});
    SaturationAccumulator both, left, right;
    both.add(a);
    both.add(b);
    left.add(a);
    right.add(b);
    left.merge(right);
    const auto x = both.result();
    const auto y = left.result();
    ASSERT_EQ(x.size(), y.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        EXPECT_EQ(x[i].rows, 8);
        EXPECT_EQ(x[i].rows, y[i].rows);
        EXPECT_EQ(x[i].meanEntropy, y[i].meanEntropy);
        EXPECT_EQ(x[i].maxAbsLogit, y[i].maxAbsLogit);
        EXPECT_EQ(x[i].oneHotRows, y[i].oneHotRows);
        EXPECT_TRUE(std::isnan(x[i].maxAbsUnnormed));  // not recorded
    }
    EXPECT_FALSE(both.hasUnnormed());
    EXPECT_EQ(both.sentences(), 2);
}

TEST(Saturation, FullyMaskedRowsAreLeftOut) {
    const auto m = model::loadModel(kCheckpoints / "bert_f32");
    forward::ForwardOptions o;
    o.mask.kind = forward::MaskKind::Causal;
    o.mask.causalOffset = -1;  // query 0 sees no key
    const auto r = forward::runForward(*m, {{2, 9, 14, 7}, {}}, o);
    ASSERT_EQ(r.fullyMaskedRows, std::vector<int>{0});
    for (const HeadSaturation& s : saturationStats(r)) {
        EXPECT_EQ(s.rows, 3);
    }
}

TEST(Saturation, RefusesPassesOfAnotherShape) {
    const auto a = model::loadModel(kCheckpoints / "qwen3_gqa_qknorm_f32");
    const auto b = model::loadModel(kCheckpoints / "bert_f32");
    SaturationAccumulator acc;
    acc.add(forward::runForward(*a, {{1, 5, 9}, {}}, {}));
    EXPECT_THROW(acc.add(forward::runForward(*b, {{2, 9}, {}}, {})), InvalidArgument);
}

}  // namespace
}  // namespace attnscope::analysis
