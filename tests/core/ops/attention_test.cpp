// The attention primitive: properties that hold for any input.
#include "attnscope/ops/attention.h"

#include <cmath>

#include <gtest/gtest.h>

#include "attnscope/base/error.h"

namespace attnscope::ops {
namespace {

Matrix random(int rows, int cols, unsigned seed) {
    std::srand(seed);
    return Matrix::Random(rows, cols);
}

TEST(Attention, RowsSumToOneAndOutputIsWeightedValues) {
    const Matrix q = random(4, 3, 1), k = random(5, 3, 2), v = random(5, 7, 3);
    const auto r = attention(q, k, v);
    ASSERT_EQ(r.output.rows(), 4);
    ASSERT_EQ(r.output.cols(), 7);  // value width differs from key width
    for (int row = 0; row < 4; ++row) {
        EXPECT_NEAR(r.probs.row(row).sum(), 1.0f, 1e-6f);
    }
    EXPECT_TRUE(r.output.isApprox(r.probs * v));
    EXPECT_TRUE(r.logits.isApprox(q * k.transpose() / std::sqrt(3.0f)));
    EXPECT_TRUE(r.fullyMaskedRows.empty());
}

TEST(Attention, ExplicitScaleOverridesDefault) {
    const Matrix q = random(2, 4, 4), k = random(3, 4, 5), v = random(3, 4, 6);
    AttentionOptions o;
    o.scale = 1.0f;
    EXPECT_TRUE(attention(q, k, v, o).logits.isApprox(q * k.transpose()));
}

TEST(Attention, UniformRowHasEntropyLogN) {
    const Matrix q = Matrix::Zero(1, 2), k = random(6, 2, 7), v = random(6, 2, 8);
    const auto r = attention(q, k, v);
    EXPECT_NEAR(r.entropy[0], std::log(6.0f), 1e-6f);
}

TEST(Attention, FullyMaskedRowIsZeroNotNaN) {
    const Matrix q = random(3, 2, 9), k = random(3, 2, 10), v = random(3, 2, 11);
    AttentionOptions o;
    o.mask.causal = true;
    o.mask.causalOffset = -1;
    const auto r = attention(q, k, v, o);
    EXPECT_EQ(r.fullyMaskedRows, std::vector<int>{0});
    EXPECT_TRUE(r.probs.row(0).isZero());
    EXPECT_TRUE(r.output.row(0).isZero());
    EXPECT_EQ(r.entropy[0], 0.0f);
    EXPECT_FALSE(r.probs.hasNaN());
    EXPECT_FALSE(r.output.hasNaN());
    EXPECT_NEAR(r.probs.row(1).sum(), 1.0f, 1e-6f);
    EXPECT_EQ(r.probs(1, 0), 1.0f);  // row 1 sees only key 0
}

// Regression (issue 2): Eigen's vectorised exp clamps near -88 and turned exp(-inf) into a
// 3e-39 denormal; PyTorch gives exactly 0 on forbidden keys and so must we.
TEST(Attention, ForbiddenKeysGetExactlyZero) {
    const Matrix q = random(6, 4, 12), k = random(6, 4, 13), v = random(6, 4, 14);
    AttentionOptions o;
    o.mask.causal = true;
    const auto r = attention(q, k, v, o);
    for (int row = 0; row < 6; ++row) {
        for (int col = row + 1; col < 6; ++col) {
            EXPECT_EQ(r.probs(row, col), 0.0f) << row << "," << col;
        }
    }
}

TEST(Attention, HugeLogitsDoNotOverflow) {
    Matrix q(1, 1), k(2, 1);
    q << 1000.0f;
    k << 1.0f, 0.99f;
    AttentionOptions o;
    o.scale = 1.0f;
    const auto r = attention(q, k, Matrix::Identity(2, 2), o);
    EXPECT_FALSE(r.probs.hasNaN());
    EXPECT_NEAR(r.probs(0, 0), 1.0f / (1.0f + std::exp(-10.0f)), 1e-6f);
}

TEST(Attention, MismatchedShapesAreErrors) {
    EXPECT_THROW(attention(random(2, 3, 1), random(2, 4, 1), random(2, 4, 1)), InvalidArgument);
    EXPECT_THROW(attention(random(2, 3, 1), random(2, 3, 1), random(3, 3, 1)), InvalidArgument);
}

}  // namespace
}  // namespace attnscope::ops
