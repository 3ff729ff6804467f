// Rotary position embedding: the two pairings, partial rotation, and the frequency schedules.
#include "attnscope/ops/rope.h"

#include <cmath>
#include <numbers>

#include <gtest/gtest.h>

namespace attnscope::ops {
namespace {

RopeSpec rope(int dims, RopePairing pairing = RopePairing::HalfSplit) {
    RopeSpec r;
    r.dims = dims;
    r.pairing = pairing;
    return r;
}

Matrix randomMatrix(Eigen::Index rows, Eigen::Index cols, unsigned seed) {
    std::srand(seed);
    return Matrix::Random(rows, cols);
}

TEST(Rope, PositionZeroIsTheIdentity) {
    const Matrix x = randomMatrix(1, 8, 1);
    Matrix y = x;
    applyRope(y, 1, 8, rope(8), ropeTable(rope(8), {0}));
    EXPECT_EQ(y, x);
}

TEST(Rope, HalfSplitRotatesDimensionKWithKPlusHalf) {
    // One head of width 4, position 1: pairs (0, 2) at frequency 1 and (1, 3) at 1/100.
    Matrix x(1, 4);
    x << 1.0f, 0.0f, 0.0f, 1.0f;
    applyRope(x, 1, 4, rope(4), ropeTable(rope(4), {1}));
    EXPECT_NEAR(x(0, 0), std::cos(1.0), 1e-6);
    EXPECT_NEAR(x(0, 2), std::sin(1.0), 1e-6);
    EXPECT_NEAR(x(0, 1), -std::sin(0.01), 1e-6);
    EXPECT_NEAR(x(0, 3), std::cos(0.01), 1e-6);
}

TEST(Rope, PartialRotationLeavesTheTailAlone) {
    const Matrix x = randomMatrix(3, 12, 2);  // two heads of width 6, 4 rotated dims each
    Matrix y = x;
    applyRope(y, 2, 6, rope(4), ropeTable(rope(4), {0, 5, 9}));
    for (int head = 0; head < 2; ++head) {
        EXPECT_EQ(y.middleCols(head * 6 + 4, 2), x.middleCols(head * 6 + 4, 2));
        EXPECT_NE(y.middleCols(head * 6, 4), x.middleCols(head * 6, 4));
    }
}

TEST(Rope, ScoresDependOnlyOnTheDistance) {
    const Matrix q = randomMatrix(1, 8, 3);
    const Matrix k = randomMatrix(1, 8, 4);
    const auto score = [&](int pq, int pk) {
        Matrix a = q;
        Matrix b = k;
        applyRope(a, 1, 8, rope(8), ropeTable(rope(8), {pq}));
        applyRope(b, 1, 8, rope(8), ropeTable(rope(8), {pk}));
        return a.row(0).dot(b.row(0));
    };
    EXPECT_NEAR(score(7, 3), score(14, 10), 1e-4);
    EXPECT_NEAR(score(2, 2), q.row(0).dot(k.row(0)), 1e-5);
}

// methods.md §7.4: HF's converted weights put dimension 2r at r and 2r+1 at d/2 + r, so
// rotate_half on permuted vectors equals the interleaved rotation on the original ones.
TEST(Rope, InterleavedEqualsHalfSplitOnPermutedDimensions) {
    const int d = 8;
    const Matrix x = randomMatrix(4, 2 * d, 5);  // 4 tokens, 2 heads
    Matrix permuted(4, 2 * d);
    for (int head = 0; head < 2; ++head) {
        for (int r = 0; r < d / 2; ++r) {
            permuted.col(head * d + r) = x.col(head * d + 2 * r);
            permuted.col(head * d + d / 2 + r) = x.col(head * d + 2 * r + 1);
        }
    }
    const std::vector<int> positions = {0, 3, 17, 40};
    Matrix interleaved = x;
    applyRope(interleaved, 2, d, rope(d, RopePairing::Interleaved), ropeTable(rope(d), positions));
    applyRope(permuted, 2, d, rope(d), ropeTable(rope(d), positions));
    for (int head = 0; head < 2; ++head) {
        for (int r = 0; r < d / 2; ++r) {
            EXPECT_TRUE(permuted.col(head * d + r).isApprox(interleaved.col(head * d + 2 * r)));
            EXPECT_TRUE(
                permuted.col(head * d + d / 2 + r).isApprox(interleaved.col(head * d + 2 * r + 1)));
        }
    }
}

TEST(RopeFrequencies, DefaultAndLinearScaling) {
    RopeSpec r = rope(4);
    EXPECT_EQ(r.inverseFrequencies(), (std::vector<float>{1.0f, 0.01f}));
    r.scaling = RopeScaling::Linear;
    r.factor = 4.0;
    EXPECT_EQ(r.inverseFrequencies(), (std::vector<float>{0.25f, 0.0025f}));
}

TEST(RopeFrequencies, Llama3KeepsHighScalesLowAndBlendsTheMiddle) {
    // theta 500000, 8 dims, factor 8, low 1, high 4, original context 256: wavelengths 6.3
    // (high: kept), 167 (between 64 and 256: blended), 4443 and 118000 (low: divided by 8).
    RopeSpec r = rope(8);
    r.theta = 500000.0;
    r.scaling = RopeScaling::Llama3;
    r.factor = 8.0;
    r.lowFreqFactor = 1.0;
    r.highFreqFactor = 4.0;
    r.originalMaxPositions = 256.0;
    const std::vector<float> inv = r.inverseFrequencies();
    ASSERT_EQ(inv.size(), 4u);
    const double f1 = std::pow(500000.0, -0.25);
    const double smooth = (256.0 / (2 * std::numbers::pi / f1) - 1.0) / 3.0;
    EXPECT_FLOAT_EQ(inv[0], 1.0f);
    EXPECT_NEAR(inv[1], (1 - smooth) * f1 / 8 + smooth * f1, 1e-8);
    EXPECT_NEAR(inv[1], 0.010538, 1e-6);  // worked by hand from methods.md §7.3
    EXPECT_FLOAT_EQ(inv[2], static_cast<float>(std::pow(500000.0, -0.5) / 8));
    EXPECT_FLOAT_EQ(inv[3], static_cast<float>(std::pow(500000.0, -0.75) / 8));
}

}  // namespace
}  // namespace attnscope::ops
