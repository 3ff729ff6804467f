// Mask composition: causal alignment (bottom-right, with offsets), boolean and additive masks.
#include "attnscope/ops/mask.h"

#include <limits>

#include <gtest/gtest.h>

#include "attnscope/base/error.h"

namespace attnscope::ops {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

BoolMatrix allowed(std::initializer_list<std::initializer_list<int>> rows) {
    BoolMatrix m(static_cast<Eigen::Index>(rows.size()),
                 static_cast<Eigen::Index>(rows.begin()->size()));
    Eigen::Index r = 0;
    for (const auto& row : rows) {
        Eigen::Index c = 0;
        for (int v : row) {
            m(r, c++) = static_cast<std::uint8_t>(v);
        }
        ++r;
    }
    return m;
}

TEST(Mask, CausalSquareIsLowerTriangle) {
    MaskSpec spec;
    spec.causal = true;
    EXPECT_EQ(allowedFromBias(buildBias(spec, 3, 3)), allowed({{1, 0, 0}, {1, 1, 0}, {1, 1, 1}}));
}

TEST(Mask, CausalIsBottomRightAlignedWhenKeysOutnumberQueries) {
    // torch.nn.attention.bias.causal_lower_right for (3, 4).
    MaskSpec spec;
    spec.causal = true;
    EXPECT_EQ(allowedFromBias(buildBias(spec, 3, 4)),
              allowed({{1, 1, 0, 0}, {1, 1, 1, 0}, {1, 1, 1, 1}}));
}

TEST(Mask, CausalOffsetShiftsTheDiagonal) {
    MaskSpec spec;
    spec.causal = true;
    spec.causalOffset = 1;
    EXPECT_EQ(allowedFromBias(buildBias(spec, 3, 3)), allowed({{1, 1, 0}, {1, 1, 1}, {1, 1, 1}}));
    spec.causalOffset = -1;  // the first query sees nothing
    EXPECT_EQ(allowedFromBias(buildBias(spec, 3, 3)), allowed({{0, 0, 0}, {1, 0, 0}, {1, 1, 0}}));
    spec.causalOffset = -5;
    EXPECT_EQ(allowedFromBias(buildBias(spec, 2, 2)), allowed({{0, 0}, {0, 0}}));
}

TEST(Mask, BooleanAndAdditiveCombine) {
    MaskSpec spec;
    spec.causal = true;
    spec.allowed = allowed({{1, 1}, {0, 1}});
    spec.additive = Matrix::Constant(2, 2, 0.5f);
    const Matrix bias = buildBias(spec, 2, 2);
    EXPECT_EQ(bias(0, 0), 0.5f);
    EXPECT_EQ(bias(0, 1), kNegInf);  // causal
    EXPECT_EQ(bias(1, 0), kNegInf);  // boolean
    EXPECT_EQ(bias(1, 1), 0.5f);
    EXPECT_FALSE(bias.hasNaN());  // -inf is selected, never multiplied
}

TEST(Mask, WrongShapeIsAnError) {
    MaskSpec spec;
    spec.allowed = BoolMatrix::Ones(2, 3);
    EXPECT_THROW(buildBias(spec, 3, 3), InvalidArgument);
    spec.allowed.reset();
    spec.additive = Matrix::Zero(3, 2);
    EXPECT_THROW(buildBias(spec, 3, 3), InvalidArgument);
}

TEST(Mask, SlidingWindowKeepsOnlyTheLastWKeys) {
    // Mistral: query i sees key j iff j <= i and i - j < window.
    MaskSpec spec;
    spec.causal = true;
    spec.window = 2;
    EXPECT_EQ(allowedFromBias(buildBias(spec, 4, 4)),
              allowed({{1, 0, 0, 0}, {1, 1, 0, 0}, {0, 1, 1, 0}, {0, 0, 1, 1}}));
}

TEST(Mask, SlidingWindowFollowsTheBottomRightDiagonal) {
    // Two new queries after three cached keys: the window counts back from each query's
    // own position (3 and 4), not from the top-left corner.
    MaskSpec spec;
    spec.causal = true;
    spec.window = 2;
    EXPECT_EQ(allowedFromBias(buildBias(spec, 2, 5)), allowed({{0, 0, 1, 1, 0}, {0, 0, 0, 1, 1}}));
}

TEST(Mask, WindowWiderThanTheSequenceChangesNothing) {
    MaskSpec causal;
    causal.causal = true;
    MaskSpec windowed = causal;
    windowed.window = 100;
    EXPECT_EQ(buildBias(windowed, 5, 5), buildBias(causal, 5, 5));
    EXPECT_FALSE(isTrivial(windowed));
}

TEST(Mask, NonPositiveWindowIsRejected) {
    MaskSpec spec;
    spec.causal = true;
    spec.window = 0;
    EXPECT_THROW(buildBias(spec, 3, 3), InvalidArgument);
}

}  // namespace
}  // namespace attnscope::ops
