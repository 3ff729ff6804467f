// The in-place x·Wᵀ kernel (core/src/ops/weight_product.*): equal to Eigen's product on every
// tile remainder, independent of the thread count bit for bit, and correct on strided views.
#include "ops/weight_product.h"

#include <cstring>
#include <tuple>

#include <gtest/gtest.h>

#include "attnscope/base/threads.h"

namespace attnscope::ops::detail {
namespace {

Matrix randomMatrix(Eigen::Index rows, Eigen::Index cols, unsigned seed) {
    std::srand(seed);
    return Matrix::Random(rows, cols);
}

float maxRelativeError(const Matrix& got, const Matrix& want) {
    const float scale = std::max(1.0f, want.cwiseAbs().maxCoeff());
    return (got - want).cwiseAbs().maxCoeff() / scale;
}

class InPlaceProduct
    : public ::testing::TestWithParam<std::tuple<Eigen::Index, Eigen::Index, Eigen::Index>> {};

TEST_P(InPlaceProduct, EqualsEigensProduct) {
    const auto [n, depth, outputs] = GetParam();
    const Matrix x = randomMatrix(n, depth, 1);
    const Matrix w = randomMatrix(outputs, depth, 2);
    Matrix y(n, outputs);
    productNTInPlace(x, w, y);
    const Matrix want = x * w.transpose();
    EXPECT_LE(maxRelativeError(y, want), 2e-6f) << n << " x " << depth << " x " << outputs;
}

// Every remainder of the 2-row and 6-output tiles, of the 8-wide vectors and of the
// 512-deep blocks.
INSTANTIATE_TEST_SUITE_P(Shapes, InPlaceProduct,
                         ::testing::Combine(::testing::Values(1, 2, 3, 5, 130),
                                            ::testing::Values(7, 9, 1100),
                                            ::testing::Values(1, 5, 6, 67)));

TEST(InPlaceProductThreads, TwoThreadsGiveOneThreadsBits) {
    const Matrix x = randomMatrix(20, 777, 3);
    const Matrix w = randomMatrix(301, 777, 4);
    Matrix one(20, 301);
    Matrix two(20, 301);
    setComputeThreads(1);
    applyComputeThreads();
    productNTInPlace(x, w, one);
    setComputeThreads(2);
    applyComputeThreads();
    productNTInPlace(x, w, two);
    setComputeThreads(1);
    applyComputeThreads();
    EXPECT_EQ(std::memcmp(one.data(), two.data(), sizeof(float) * one.size()), 0);
}

TEST(InPlaceProductViews, ReadsAndWritesStridedBlocks) {
    const Matrix x = randomMatrix(9, 40, 5);
    const Matrix w = randomMatrix(30, 40, 6);
    Matrix y = Matrix::Constant(9, 50, 7.0f);
    productNTInPlace(x.middleCols(3, 20), w.middleCols(3, 20), y.middleCols(10, 30));
    const Matrix want = x.middleCols(3, 20) * w.middleCols(3, 20).transpose();
    EXPECT_LE(maxRelativeError(y.middleCols(10, 30), want), 2e-6f);
    EXPECT_TRUE((y.leftCols(10).array() == 7.0f).all()) << "wrote outside its block";
    EXPECT_TRUE((y.rightCols(10).array() == 7.0f).all()) << "wrote outside its block";
}

TEST(ProductNT, LongInputsTakeEigensPathWithTheSameResult) {
    const Matrix x = randomMatrix(kInPlaceRows + 5, 64, 7);
    const Matrix w = randomMatrix(48, 64, 8);
    EXPECT_LE(maxRelativeError(productNT(x, w), x * w.transpose()), 2e-6f);
    EXPECT_LE(maxRelativeError(productNT(x.topRows(10), w), x.topRows(10) * w.transpose()), 2e-6f);
}

}  // namespace
}  // namespace attnscope::ops::detail
