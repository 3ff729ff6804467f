// The x·Wᵀ kernel (core/src/ops/weight_product.*, weight_kernel*): equal to Eigen's product on
// every panel and tile remainder, its bits independent of the thread count, of which rows go
// together and of the instruction set (AVX2 or AVX-512), and correct on strided views.
#include "ops/weight_product.h"

#include <cstdlib>
#include <cstring>
#include <string_view>
#include <tuple>

#include <gtest/gtest.h>

#include "attnscope/base/threads.h"
#include "attnscope/ops/half_matrix.h"

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

Matrix serialProduct(const Eigen::Ref<const Matrix>& x, const Eigen::Ref<const Matrix>& w) {
    Matrix y(x.rows(), w.rows());
    productNTSerial(PackedRows(x), w, y);
    return y;
}

class Product
    : public ::testing::TestWithParam<std::tuple<Eigen::Index, Eigen::Index, Eigen::Index>> {};

TEST_P(Product, EqualsEigensProduct) {
    const auto [n, depth, outputs] = GetParam();
    const Matrix x = randomMatrix(n, depth, 1);
    const Matrix w = randomMatrix(outputs, depth, 2);
    const Matrix want = x * w.transpose();
    EXPECT_LE(maxRelativeError(serialProduct(x, w), want), 2e-6f)
        << n << " x " << depth << " x " << outputs;
    EXPECT_LE(maxRelativeError(productNT(x, w), want), 2e-6f)
        << n << " x " << depth << " x " << outputs;
}

// Issue 13: the AVX-512 kernel, chosen at run time where the CPU has it, must repeat the AVX2
// kernel's bits (one FMA chain per output in both), so results never depend on the machine.
TEST_P(Product, Avx512KernelGivesTheAvx2KernelsBits) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512vl")) {
        GTEST_SKIP() << "this CPU has no AVX-512 F/VL; the kernel is compiled but cannot run here";
    }
    const auto [n, depth, outputs] = GetParam();
    const Matrix x = randomMatrix(n, depth, 11);
    const Matrix w = randomMatrix(outputs, depth, 12);
    const Vector bias = Vector::Random(outputs);
    Matrix narrow(n, outputs);
    Matrix wide(n, outputs);
    productNTWith(avx2WeightKernel(), PackedRows(x), w, narrow, bias.data());
    productNTWith(avx512WeightKernel(), PackedRows(x), w, wide, bias.data());
    EXPECT_EQ(std::memcmp(narrow.data(), wide.data(), sizeof(float) * narrow.size()), 0)
        << n << " x " << depth << " x " << outputs;
}

// Every remainder of the 16-row panels (one vector up to 8 rows, more above), of AVX-512's
// 32-row groups (17 and 25 rows: a group with a short second panel; 33, 41 and 47: a group and
// a short panel of either kind), of the 6- and 12-row tiles of W and of its 48-row blocks, of
// the 256-column depth slices (130 rows are sliced); no depth at all.
INSTANTIATE_TEST_SUITE_P(Shapes, Product,
                         ::testing::Combine(::testing::Values(1, 3, 8, 9, 16, 17, 25, 32, 33, 41,
                                                              47, 130),
                                            ::testing::Values(0, 7, 1100),
                                            ::testing::Values(1, 5, 6, 11, 12, 13, 49, 67)));

TEST(WeightKernel, ChosenOnceForTheCpu) {
    __builtin_cpu_init();
    const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
    const char* asked = std::getenv("ATTNSCOPE_ISA");
    const bool forced = asked != nullptr && std::string_view(asked) == "avx2";
    EXPECT_STREQ(weightKernel().isa, avx512 && !forced ? "avx512" : "avx2");
    EXPECT_EQ(&weightKernel(), &weightKernel());
}

TEST(ProductThreads, TwoThreadsGiveOneThreadsBits) {
    const Matrix x = randomMatrix(20, 777, 3);
    const Matrix w = randomMatrix(301, 777, 4);
    Matrix one(20, 301);
    Matrix two(20, 301);
    setComputeThreads(1);
    applyComputeThreads();
    one = productNT(x, w);
    setComputeThreads(2);
    applyComputeThreads();
    two = productNT(x, w);
    setComputeThreads(1);
    applyComputeThreads();
    EXPECT_EQ(std::memcmp(one.data(), two.data(), sizeof(float) * one.size()), 0);
}

TEST(ProductViews, ReadsAndWritesStridedBlocks) {
    const Matrix x = randomMatrix(9, 40, 5);
    const Matrix w = randomMatrix(30, 40, 6);
    Matrix y = Matrix::Constant(9, 50, 7.0f);
    productNTSerial(PackedRows(x.middleCols(3, 20)), w.middleCols(3, 20), y.middleCols(10, 30));
    const Matrix want = x.middleCols(3, 20) * w.middleCols(3, 20).transpose();
    EXPECT_LE(maxRelativeError(y.middleCols(10, 30), want), 2e-6f);
    EXPECT_TRUE((y.leftCols(10).array() == 7.0f).all()) << "wrote outside its block";
    EXPECT_TRUE((y.rightCols(10).array() == 7.0f).all()) << "wrote outside its block";
}

// A row's result must not depend on the other rows: the budgeted pass recomputes one head from
// a layer's input, and the half-precision path multiplies W block by block.
TEST(ProductNT, EveryRowKeepsItsBitsWhateverRowsAndBlocksGoWithIt) {
    // 150 rows: long enough that the depth is sliced; 7 rows are not.
    const Matrix x = randomMatrix(150, 300, 7);
    const Matrix w = randomMatrix(70, 300, 8);
    const Matrix all = productNT(x, w);
    for (const Eigen::Index first : {0, 5, 16, 30, 143}) {
        const Matrix some = productNT(x.middleRows(first, 7), w);
        EXPECT_EQ(std::memcmp(some.data(), all.middleRows(first, 7).eval().data(),
                              sizeof(float) * some.size()),
                  0)
            << "rows from " << first;
    }
    Matrix blocks(150, 70);
    productNTSerial(PackedRows(x), w.topRows(25), blocks.leftCols(25));
    productNTSerial(PackedRows(x), w.bottomRows(45), blocks.rightCols(45));
    EXPECT_EQ(std::memcmp(blocks.data(), all.data(), sizeof(float) * all.size()), 0);
}

// Long inputs take W in jobs of up to 192 rows, split by the thread count: the bits must not
// change with the job size (430 rows: two 192-row jobs and a short one on one thread, 48-row
// multiples on two).
TEST(ProductNT, LongInputsKeepTheirBitsWhateverTheJobSize) {
    const Matrix x = randomMatrix(150, 300, 11);
    const Matrix w = randomMatrix(430, 300, 12);
    setComputeThreads(1);
    applyComputeThreads();
    const Matrix one = productNT(x, w);
    setComputeThreads(2);
    applyComputeThreads();
    const Matrix two = productNT(x, w);
    setComputeThreads(1);
    applyComputeThreads();
    EXPECT_EQ(std::memcmp(one.data(), two.data(), sizeof(float) * one.size()), 0);
    Matrix pieces(150, 430);
    productNTSerial(PackedRows(x), w.topRows(48), pieces.leftCols(48));
    productNTSerial(PackedRows(x), w.bottomRows(382), pieces.rightCols(382));
    EXPECT_EQ(std::memcmp(pieces.data(), one.data(), sizeof(float) * one.size()), 0);
    const Matrix few = productNT(x.topRows(5), w);
    EXPECT_EQ(std::memcmp(few.data(), one.topRows(5).eval().data(), sizeof(float) * few.size()), 0);
}

// A stored (here BF16) weight is widened in blocks whose size depends on the input's length:
// short and long inputs alike give the bits of the fp32 product of the widened matrix.
TEST(StoredProduct, EqualsTheProductOfTheWidenedWeightsForShortAndLongInputs) {
    Linear w;
    w.half.bfloat16 = true;
    w.half.bits.resize(430, 300);
    std::srand(13);
    for (Eigen::Index i = 0; i < w.half.bits.size(); ++i) {
        w.half.bits.data()[i] = static_cast<std::uint16_t>(0x3c00 + std::rand() % 0x0400);
    }
    Matrix widened;
    widenRows(w, 0, 430, widened);
    for (const Eigen::Index n : {7, 150}) {
        const Matrix x = randomMatrix(n, 300, 14);
        const Matrix got = storedProduct(x, w, 0, 430);
        const Matrix want = productNT(x, widened);
        EXPECT_EQ(std::memcmp(got.data(), want.data(), sizeof(float) * want.size()), 0)
            << "n = " << n;
    }
}

// The bias is added inside the product (in parallel, while y is in cache) with the same single
// rounding as adding it afterwards.
TEST(ProductNT, BiasInsideEqualsBiasAfterBitForBit) {
    const Matrix x = randomMatrix(21, 50, 9);
    const Matrix w = randomMatrix(31, 50, 10);
    const Vector bias = Vector::Random(31);
    Matrix want = productNT(x, w);
    want.rowwise() += bias.transpose();
    const Matrix got = productNT(x, w, bias.data());
    EXPECT_EQ(std::memcmp(got.data(), want.data(), sizeof(float) * want.size()), 0);
    Matrix serial(21, 31);
    productNTSerial(PackedRows(x), w, serial, bias.data());
    EXPECT_EQ(std::memcmp(serial.data(), want.data(), sizeof(float) * want.size()), 0);
}

}  // namespace
}  // namespace attnscope::ops::detail
