// JS divergence between heads, on methods.md §1.6's golden values.
#include "attnscope/analysis/head_compare.h"

#include <gtest/gtest.h>

#include "attnscope/base/error.h"

namespace attnscope::analysis {
namespace {

TEST(HeadCompare, MethodsGoldenValues) {
    const Matrix identity = Matrix::Identity(3, 3);
    Matrix shift(3, 3);
    shift << 0, 1, 0, 0, 0, 1, 1, 0, 0;
    const Matrix uniform = Matrix::Constant(3, 3, 1.0f / 3.0f);
    EXPECT_NEAR(compareHeads(identity, shift).totalDivergence, 2.069743f, 1e-5f);
    EXPECT_NEAR(compareHeads(identity, uniform).totalDivergence, 0.947151f, 1e-5f);
    const auto self = compareHeads(identity, identity);
    EXPECT_EQ(self.totalDivergence, 0.0f);
    EXPECT_TRUE(self.difference.isZero());
}

TEST(HeadCompare, PerRowValuesSumToTotalAndFullyMaskedRowsCountZero) {
    Matrix a(2, 2), b(2, 2);
    a << 1, 0, 0, 0;  // row 1 fully masked
    b << 0, 1, 0.5, 0.5;
    const auto c = compareHeads(a, b);
    ASSERT_EQ(c.rowDivergence.size(), 2u);
    EXPECT_GT(c.rowDivergence[0], 0.0f);
    EXPECT_EQ(c.rowDivergence[1], 0.0f);
    EXPECT_FLOAT_EQ(c.totalDivergence, c.rowDivergence[0]);
}

TEST(HeadCompare, ShapesMustAgree) {
    EXPECT_THROW(compareHeads(Matrix::Zero(2, 2), Matrix::Zero(2, 3)), InvalidArgument);
}

}  // namespace
}  // namespace attnscope::analysis
