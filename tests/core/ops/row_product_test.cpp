// The one-row product of Q8_0 weights (core/src/ops/row_product.*, row_kernel*) over rows
// grouped at load (q8_0_groups.*): the grouping read back exactly; the very bits of the product
// it stands in for (widening the stored blocks, then the weight product) on every remainder of
// its row groups and jobs, ranges starting inside a group, with and without a bias, on each
// instruction set's kernel and at any thread count; taken only where it applies.
#include "ops/row_product.h"

#include <cstring>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "attnscope/base/threads.h"
#include "attnscope/ops/half_matrix.h"
#include "attnscope/ops/layer_ops.h"

namespace attnscope::ops::detail {
namespace {

// Random Q8_0 rows: f16 scales over four decades (some subnormal, some negative) and codes over
// the whole int8 range.
Linear q8Matrix(Eigen::Index rows, Eigen::Index cols, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> exponent(-9.0f, 0.0f);
    std::uniform_int_distribution<int> code(-128, 127);
    Linear w;
    w.blocks.type = io::GgmlType::Q8_0;
    w.blocks.rows = rows;
    w.blocks.cols = cols;
    w.blocks.rowBytes = cols / 32 * 34;
    w.blocks.bytes.resize(static_cast<std::size_t>(rows * w.blocks.rowBytes));
    std::byte* p = w.blocks.bytes.data();
    for (Eigen::Index b = 0; b < rows * cols / 32; ++b, p += 34) {
        const float d = ((b % 3 == 0) ? -1.0f : 1.0f) * std::exp2(exponent(rng) * 2.0f);
        const auto bits = Eigen::numext::bit_cast<std::uint16_t>(Eigen::half(d));
        std::memcpy(p, &bits, 2);
        for (int j = 0; j < 32; ++j) {
            p[2 + j] = static_cast<std::byte>(code(rng));
        }
    }
    return w;
}

Linear grouped(Linear w) {
    EXPECT_TRUE(groupRows(w.blocks));
    return w;
}

Matrix randomRow(Eigen::Index cols, unsigned seed) {
    std::srand(seed);
    return Matrix::Random(1, cols);
}

bool sameBits(const Matrix& a, const Matrix& b) {
    return a.size() == b.size() &&
           std::memcmp(a.data(), b.data(), sizeof(float) * static_cast<std::size_t>(a.size())) == 0;
}

class RowProduct : public ::testing::TestWithParam<std::tuple<Eigen::Index, Eigen::Index>> {};

// Every remainder of the 16-row groups, of the kernels' 32- and 64-row passes and of the
// 128-row jobs, from a group's first row and from inside one; rows after the last group; one
// block of depth and many.
TEST_P(RowProduct, GivesTheStoredProductsBits) {
    const auto [depth, outputs] = GetParam();
    const Linear stored = q8Matrix(outputs + 21, depth, static_cast<unsigned>(depth + outputs));
    const Linear w = grouped(stored);
    const Matrix x = randomRow(depth, 3);
    const Vector bias = Vector::Random(outputs + 21);
    for (const Eigen::Index first :
         {Eigen::Index{0}, Eigen::Index{5}, Eigen::Index{16}, Eigen::Index{21}}) {
        for (const float* b : {static_cast<const float*>(nullptr), bias.data() + first}) {
            const Matrix want = storedProduct(x, stored, first, outputs, b);
            EXPECT_TRUE(sameBits(storedProduct(x, w, first, outputs, b), want))
                << "grouped, widened " << depth << " x " << outputs << " from " << first;
            EXPECT_TRUE(sameBits(rowProduct(x, w, first, outputs, b), want))
                << depth << " x " << outputs << " from " << first << (b ? " with bias" : "");
            EXPECT_TRUE(sameBits(rowProductWith(avx2RowKernel(), x, w, first, outputs, b), want))
                << "avx2 " << depth << " x " << outputs << " from " << first;
            __builtin_cpu_init();
            if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")) {
                EXPECT_TRUE(
                    sameBits(rowProductWith(avx512RowKernel(), x, w, first, outputs, b), want))
                    << "avx512 " << depth << " x " << outputs << " from " << first;
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, RowProduct,
                         ::testing::Combine(::testing::Values(32, 96, 1024),
                                            ::testing::Values(1, 15, 16, 17, 33, 63, 64, 65, 127,
                                                              128, 129, 300)));

TEST(RowProductThreads, TwoThreadsGiveOneThreadsBits) {
    const Linear w = grouped(q8Matrix(2100, 2048, 9));
    const Matrix x = randomRow(2048, 4);
    setComputeThreads(1);
    applyComputeThreads();
    const Matrix one = rowProduct(x, w, 0, 2100);
    setComputeThreads(2);
    applyComputeThreads();
    const Matrix two = rowProduct(x, w, 0, 2100);
    setComputeThreads(1);
    applyComputeThreads();
    EXPECT_TRUE(sameBits(one, two));
}

// Grouping keeps every value: the rows widen (and embed) as stored, and only Q8_0 multiplied
// exactly, with a group of rows at least, is grouped.
TEST(Q8_0Groups, WidenAsStoredAndOnlyWhereTheyApply) {
    const Linear stored = q8Matrix(37, 96, 12);
    const Linear w = grouped(stored);
    Matrix a;
    Matrix b;
    for (const auto& [first, count] :
         {std::pair<Eigen::Index, Eigen::Index>{0, 37}, {3, 20}, {31, 6}, {36, 1}}) {
        widenRows(stored, first, count, a);
        widenRows(w, first, count, b);
        EXPECT_TRUE(sameBits(a, b)) << first << " + " << count;
    }
    const std::vector<std::int32_t> ids{36, 0, 17, 5};
    EXPECT_TRUE(sameBits(weightRows(stored, ids), weightRows(w, ids)));
    Linear again = w;
    EXPECT_FALSE(groupRows(again.blocks)) << "grouped twice";
    Linear small = q8Matrix(15, 64, 13);
    EXPECT_FALSE(groupRows(small.blocks));
    Linear int8 = q8Matrix(32, 64, 14);
    int8.blocks.int8Activations = true;
    EXPECT_FALSE(groupRows(int8.blocks));
    Linear q4 = q8Matrix(32, 64, 15);
    q4.blocks.type = io::GgmlType::Q4_0;
    EXPECT_FALSE(groupRows(q4.blocks));
}

// ops::linear takes it for one row of grouped Q8_0 only; a token's row of a generation step
// equals its row of a longer input, bit for bit.
TEST(RowProductDispatch, OneRowOfGroupedQ8_0OnlyAndTheLongerInputsBits) {
    const Linear w = grouped(q8Matrix(70, 64, 10));
    const Matrix x = Matrix::Random(3, 64);
    EXPECT_TRUE(rowProductTakes(x.topRows(1), w));
    EXPECT_FALSE(rowProductTakes(x, w));
    EXPECT_FALSE(rowProductTakes(x.topRows(1), q8Matrix(70, 64, 10))) << "not grouped";
    const Matrix all = linear(x, w);
    for (Eigen::Index r = 0; r < 3; ++r) {
        EXPECT_TRUE(sameBits(linear(x.middleRows(r, 1), w), all.middleRows(r, 1))) << r;
    }
}

}  // namespace
}  // namespace attnscope::ops::detail
