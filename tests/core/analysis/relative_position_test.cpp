// Mean attention by offset and Voita's positional rule (methods.md §2.1–2.2) on small maps
// computed by hand, and on a generated checkpoint against a direct loop. Issue 5.
#include "attnscope/analysis/relative_position.h"

#include <array>
#include <cmath>
#include <random>
#include <utility>

#include <gtest/gtest.h>

#include "attnscope/base/error.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"

namespace attnscope::analysis {
namespace {

const std::filesystem::path kCheckpoints =
    std::filesystem::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

// Row i puts all its weight on key i - 1; row 0 (no previous token) on itself.
std::vector<float> previousTokenMap(int n) {
    std::vector<float> m(static_cast<std::size_t>(n * n), 0.0f);
    for (int i = 0; i < n; ++i) {
        m[static_cast<std::size_t>(i * n + std::max(0, i - 1))] = 1.0f;
    }
    return m;
}

// A random row-stochastic causal map: row i spreads its weight over keys 0..i.
std::vector<float> randomCausalMap(int n, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> u(0.01f, 1.0f);
    std::vector<float> m(static_cast<std::size_t>(n * n), 0.0f);
    for (int i = 0; i < n; ++i) {
        float sum = 0;
        for (int j = 0; j <= i; ++j) {
            sum += m[static_cast<std::size_t>(i * n + j)] = u(gen);
        }
        for (int j = 0; j <= i; ++j) {
            m[static_cast<std::size_t>(i * n + j)] /= sum;
        }
    }
    return m;
}

std::vector<std::uint8_t> lowerTriangle(int n) {
    std::vector<std::uint8_t> allowed(static_cast<std::size_t>(n * n), 0);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j <= i; ++j) {
            allowed[static_cast<std::size_t>(i * n + j)] = 1;
        }
    }
    return allowed;
}

TEST(RelativePosition, PreviousTokenHeadIsPositionalAtMinusOne) {
    const int n = 5;
    const std::vector<float> map = previousTokenMap(n);
    const std::vector<std::uint8_t> special = {1, 0, 0, 0, 0};  // [CLS]-like first token
    RelativePositionAccumulator acc;
    acc.add(map, n, special);
    const PositionalVerdict v = acc.verdict();
    EXPECT_EQ(v.queries, 4);
    EXPECT_EQ(v.bestOffset, -1);
    EXPECT_DOUBLE_EQ(v.frequency, 1.0);
    EXPECT_TRUE(v.positional);
    EXPECT_DOUBLE_EQ(v.confidence, 1.0);
    EXPECT_EQ(acc.skippedQueries(), 1);
    EXPECT_EQ(acc.maxOffset(), 4);

    // Queries 1..4 all have a previous key, with weight 1.
    EXPECT_DOUBLE_EQ(acc.at(-1).meanAttention, 1.0);
    EXPECT_EQ(acc.at(-1).queries, 4);
    EXPECT_EQ(acc.at(-1).argmaxQueries, 4);
    EXPECT_DOUBLE_EQ(acc.at(0).meanAttention, 0.0);
    EXPECT_EQ(acc.at(0).queries, 4);
    EXPECT_EQ(acc.at(1).queries, 3);  // query 4 has no next token
    EXPECT_EQ(acc.at(-4).queries, 1);
    EXPECT_EQ(acc.at(3).queries, 1);
    EXPECT_EQ(acc.at(4).queries, 0);  // only query 0 could reach +4, and it is special
    EXPECT_TRUE(std::isnan(acc.at(4).meanAttention));
    EXPECT_EQ(acc.offsets().size(), 9u);
    EXPECT_EQ(acc.offsets().front().offset, -4);
}

TEST(RelativePosition, FirstTokenCountsInTheDenominator) {
    // With the first token counted, its argmax is itself (r = 0): 4 of 5 queries at -1.
    const int n = 5;
    RelativePositionAccumulator acc;
    acc.add(previousTokenMap(n), n);
    const PositionalVerdict v = acc.verdict();
    EXPECT_EQ(v.queries, 5);
    EXPECT_EQ(v.bestOffset, -1);
    EXPECT_DOUBLE_EQ(v.frequency, 0.8);
    EXPECT_FALSE(v.positional);
    EXPECT_TRUE(acc.verdict(0.8).positional);  // the threshold is inclusive
    EXPECT_FALSE(acc.verdict(0.81).positional);
    EXPECT_EQ(acc.at(0).argmaxQueries, 1);
}

TEST(RelativePosition, UniformMap) {
    const int n = 4;
    const std::vector<float> map(static_cast<std::size_t>(n * n), 0.25f);
    RelativePositionAccumulator acc;
    acc.add(map, n);
    for (int d = -3; d <= 3; ++d) {
        EXPECT_DOUBLE_EQ(acc.at(d).meanAttention, 0.25) << d;
        EXPECT_EQ(acc.at(d).queries, n - std::abs(d)) << d;
        EXPECT_EQ(acc.at(d).allowedQueries, n - std::abs(d)) << d;
    }
    // Ties go to the first key (j = 0), so r_i = -i: offsets 0, -1, -2, -3 once each. The mode
    // is then a four-way tie, which goes to the smallest |r|.
    for (int d = -3; d <= 0; ++d) {
        EXPECT_EQ(acc.at(d).argmaxQueries, 1) << d;
    }
    const PositionalVerdict v = acc.verdict();
    EXPECT_EQ(v.bestOffset, 0);
    EXPECT_DOUBLE_EQ(v.frequency, 0.25);
    EXPECT_FALSE(v.positional);
    EXPECT_DOUBLE_EQ(v.confidence, 0.25);
}

TEST(RelativePosition, ModeTiesPreferTheSmallerDistanceThenThePreviousSide) {
    // Rows: 0 -> key 1 (+1), 1 -> key 0 (-1), 2 -> key 1 (-1), 3 -> key 4 (+1), 4 -> key 2 (-2).
    const int n = 5;
    std::vector<float> map(static_cast<std::size_t>(n * n), 0.0f);
    const std::array<std::pair<int, int>, 5> argmax = {{{0, 1}, {1, 0}, {2, 1}, {3, 4}, {4, 2}}};
    for (const auto& [q, k] : argmax) {
        map[static_cast<std::size_t>(q * n + k)] = 1.0f;
    }
    RelativePositionAccumulator acc;
    acc.add(map, n);
    EXPECT_EQ(acc.at(1).argmaxQueries, 2);
    EXPECT_EQ(acc.at(-1).argmaxQueries, 2);
    EXPECT_EQ(acc.verdict().bestOffset, -1);
    EXPECT_DOUBLE_EQ(acc.verdict().frequency, 0.4);
}

TEST(RelativePosition, FullyMaskedRowsAreSkipped) {
    // Row 2 is all zero (no allowed key): it is neither a query nor a zero at any offset.
    const int n = 4;
    std::vector<float> map = randomCausalMap(n, 7);
    std::vector<std::uint8_t> allowed = lowerTriangle(n);
    for (int j = 0; j < n; ++j) {
        map[static_cast<std::size_t>(2 * n + j)] = 0.0f;
        allowed[static_cast<std::size_t>(2 * n + j)] = 0;
    }
    RelativePositionAccumulator acc;
    acc.add(map, n, {}, allowed);
    EXPECT_EQ(acc.countedQueries(), 3);
    EXPECT_EQ(acc.skippedQueries(), 1);
    // Offset 0 over queries 0, 1, 3 only.
    const double expected =
        (map[0] + map[static_cast<std::size_t>(n + 1)] + map[static_cast<std::size_t>(3 * n + 3)]) /
        3.0;
    EXPECT_NEAR(acc.at(0).meanAttention, expected, 1e-7);
    EXPECT_EQ(acc.at(0).queries, 3);
    // A causal map: positive offsets exist as keys but the mask forbids them all.
    EXPECT_EQ(acc.at(1).queries, 2);  // queries 0 and 1 (query 3 has no key 4)
    EXPECT_EQ(acc.at(1).allowedQueries, 0);
    EXPECT_DOUBLE_EQ(acc.at(1).meanAttention, 0.0);
    EXPECT_EQ(acc.at(-1).allowedQueries, 2);  // queries 1 and 3
    EXPECT_EQ(acc.at(-3).allowedQueries, 1);
}

TEST(RelativePosition, SpecialKeysCanBeLeftOut) {
    // Query 1 puts 0.6 on [CLS] (key 0) and 0.3 on itself; query 2 0.5 on [CLS], 0.4 on key 1.
    const int n = 3;
    const std::vector<float> map = {1.0f, 0.0f, 0.0f,  //
                                    0.6f, 0.3f, 0.1f,  //
                                    0.5f, 0.4f, 0.1f};
    const std::vector<std::uint8_t> special = {1, 0, 0};
    RelativePositionAccumulator withKeys;
    withKeys.add(map, n, special);
    // Both maxima are on [CLS]: r = -1 for query 1, -2 for query 2; the tie goes to -1.
    EXPECT_EQ(withKeys.verdict().bestOffset, -1);
    EXPECT_EQ(withKeys.at(-1).argmaxQueries, 1);
    EXPECT_EQ(withKeys.at(-2).argmaxQueries, 1);
    EXPECT_NEAR(withKeys.verdict().confidence, 0.55, 1e-7);

    RelativePositionAccumulator withoutKeys({.skipSpecialQueries = true, .skipSpecialKeys = true});
    withoutKeys.add(map, n, special);
    // Now query 1's maximum is itself (0.3), query 2's key 1 (0.4), not renormalised.
    EXPECT_EQ(withoutKeys.at(0).argmaxQueries, 1);
    EXPECT_EQ(withoutKeys.at(-1).argmaxQueries, 1);
    EXPECT_NEAR(withoutKeys.verdict().confidence, 0.35, 1e-7);
    EXPECT_EQ(withoutKeys.at(-2).queries, 0);  // the only key at -2 is [CLS]
    EXPECT_EQ(withoutKeys.at(-1).queries, 1);  // query 2 -> key 1; query 1 -> [CLS] left out
    EXPECT_NEAR(withoutKeys.at(-1).meanAttention, 0.4, 1e-7);

    // Special queries counted: [CLS] itself becomes a query (r = 0).
    RelativePositionAccumulator all({.skipSpecialQueries = false});
    all.add(map, n, special);
    EXPECT_EQ(all.countedQueries(), 3);
    EXPECT_EQ(all.at(0).argmaxQueries, 1);
}

TEST(RelativePosition, MergeEqualsOnePass) {
    const std::vector<float> a = randomCausalMap(6, 1);
    const std::vector<float> b = randomCausalMap(9, 2);
    const std::vector<float> c = randomCausalMap(3, 3);
    const std::vector<std::uint8_t> specialA = {1, 0, 0, 0, 0, 1};

    RelativePositionAccumulator onePass;
    onePass.add(a, 6, specialA);
    onePass.add(b, 9);
    onePass.add(c, 3);

    RelativePositionAccumulator left;
    left.add(a, 6, specialA);
    RelativePositionAccumulator right;  // longer sentences: the merge must widen `left`
    right.add(b, 9);
    right.add(c, 3);
    left.merge(right);

    ASSERT_EQ(left.maxOffset(), onePass.maxOffset());
    EXPECT_EQ(left.sentences(), 3);
    EXPECT_EQ(left.countedQueries(), onePass.countedQueries());
    EXPECT_EQ(left.skippedQueries(), onePass.skippedQueries());
    const auto merged = left.offsets();
    const auto single = onePass.offsets();
    ASSERT_EQ(merged.size(), single.size());
    for (std::size_t i = 0; i < merged.size(); ++i) {
        SCOPED_TRACE(merged[i].offset);
        EXPECT_EQ(merged[i].offset, single[i].offset);
        EXPECT_EQ(merged[i].queries, single[i].queries);
        EXPECT_EQ(merged[i].allowedQueries, single[i].allowedQueries);
        EXPECT_EQ(merged[i].argmaxQueries, single[i].argmaxQueries);
        if (std::isnan(single[i].meanAttention)) {
            EXPECT_TRUE(std::isnan(merged[i].meanAttention));
        } else {
            // Sums in another order: equal up to double rounding.
            EXPECT_NEAR(merged[i].meanAttention, single[i].meanAttention, 1e-12);
        }
    }
    EXPECT_EQ(left.verdict().bestOffset, onePass.verdict().bestOffset);
    EXPECT_DOUBLE_EQ(left.verdict().frequency, onePass.verdict().frequency);
    EXPECT_NEAR(left.verdict().confidence, onePass.verdict().confidence, 1e-12);

    RelativePositionAccumulator other({.skipSpecialKeys = true});
    EXPECT_THROW(left.merge(other), InvalidArgument);
}

TEST(RelativePosition, EmptyAccumulatorAndBadSizes) {
    RelativePositionAccumulator acc;
    EXPECT_EQ(acc.verdict().queries, 0);
    EXPECT_TRUE(std::isnan(acc.verdict().frequency));
    EXPECT_FALSE(acc.verdict().positional);
    EXPECT_TRUE(std::isnan(acc.at(0).meanAttention));
    const std::vector<float> map(9, 1.0f / 3);
    EXPECT_THROW(acc.add(map, 4), InvalidArgument);
    EXPECT_THROW(acc.add(map, 3, std::vector<std::uint8_t>(2)), InvalidArgument);
    EXPECT_THROW(acc.add(map, 3, {}, std::vector<std::uint8_t>(8)), InvalidArgument);
    EXPECT_EQ(acc.sentences(), 0);
    EXPECT_THROW(ModelPositions(0, 4), InvalidArgument);
}

// A real causal forward pass against a direct loop over its maps.
TEST(RelativePosition, ForwardResultMatchesADirectLoop) {
    const auto m = model::loadModel(kCheckpoints / "gpt2_f32");
    const auto r = forward::runForward(*m, {{1, 5, 9, 14, 3, 7, 22}, {}});
    ModelPositions positions(r.nLayers, r.nHeads);
    positions.add(r);
    for (int layer = 0; layer < r.nLayers; ++layer) {
        for (int head = 0; head < r.nHeads; ++head) {
            const HeadId h{layer, head};
            SCOPED_TRACE(h.toString());
            const auto a = r.attention(h);
            const RelativePositionAccumulator& acc = positions.head(h);
            double previous = 0;
            std::vector<int> argmaxAt(static_cast<std::size_t>(2 * r.nTokens - 1), 0);
            for (int q = 0; q < r.nTokens; ++q) {
                if (q > 0) {
                    previous += a(q, q - 1);
                }
                Eigen::Index k = 0;
                a.row(q).maxCoeff(&k);  // Eigen also returns the first maximum
                ++argmaxAt[static_cast<std::size_t>(k - q + r.nTokens - 1)];
            }
            EXPECT_NEAR(acc.at(-1).meanAttention, previous / (r.nTokens - 1), 1e-7);
            EXPECT_EQ(acc.at(-1).queries, r.nTokens - 1);
            EXPECT_EQ(acc.at(1).allowedQueries, 0);  // causal: no query sees its next token
            EXPECT_EQ(acc.at(1).queries, r.nTokens - 1);
            for (int d = -(r.nTokens - 1); d < r.nTokens; ++d) {
                EXPECT_EQ(acc.at(d).argmaxQueries,
                          argmaxAt[static_cast<std::size_t>(d + r.nTokens - 1)])
                    << d;
            }
            // No special flags given and no fully masked row: every row counts.
            EXPECT_EQ(acc.countedQueries(), r.nTokens);
        }
    }
    EXPECT_THROW(positions.head({r.nLayers, 0}), InvalidArgument);
    ModelPositions other(r.nLayers + 1, r.nHeads);
    EXPECT_THROW(other.add(r), InvalidArgument);
}

}  // namespace
}  // namespace attnscope::analysis
