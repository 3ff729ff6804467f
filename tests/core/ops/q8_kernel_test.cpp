// The 8-bit product's kernels (core/src/ops/q8_kernel*): every instruction set gives the scalar
// reference's bits (q8_dot_scalar.cpp) on random blocks of every supported type, at shapes that
// leave partial panels and tiles, with a bias, for a slice of W's rows and any thread count; the
// types llama.cpp multiplies otherwise are refused by name.
#include <bit>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>
#include <omp.h>

#include "../support/expect_error.h"
#include "../support/ggml_scale_offsets.h"
#include "attnscope/base/error.h"
#include "attnscope/ops/q8_product.h"
#include "ops/q8_blocks.h"
#include "ops/q8_product_detail.h"

namespace attnscope::ops::detail {
namespace {

using io::GgmlType;

const GgmlType kSupported[] = {GgmlType::Q4_0, GgmlType::Q5_0, GgmlType::Q8_0, GgmlType::Q2_K,
                               GgmlType::Q3_K, GgmlType::Q4_K, GgmlType::Q5_K, GgmlType::Q6_K};

// Random block bytes (every bit pattern is a valid block) with f16 scales of moderate size, so
// that products stay finite.
BlockMatrix randomBlocks(GgmlType type, Eigen::Index rows, Eigen::Index cols, unsigned seed) {
    const Q8Format& f = requireQ8Format(type);
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> byte(0, 255);
    std::normal_distribution<float> scale(0.0f, 0.01f);
    BlockMatrix m;
    m.type = type;
    m.rows = rows;
    m.cols = cols;
    m.rowBytes = cols / f.blockElements * f.blockBytes;
    m.bytes.resize(static_cast<std::size_t>(rows * m.rowBytes));
    for (std::byte& b : m.bytes) {
        b = static_cast<std::byte>(byte(gen));
    }
    for (std::size_t at = 0; at < m.bytes.size(); at += static_cast<std::size_t>(f.blockBytes)) {
        for (const std::size_t off : testing::ggmlScaleOffsets(type)) {
            const std::uint16_t h = floatToHalf(scale(gen));
            std::memcpy(m.bytes.data() + at + off, &h, 2);
        }
    }
    return m;
}

Matrix randomActivations(Eigen::Index n, Eigen::Index depth, unsigned seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    Matrix x(n, depth);
    for (Eigen::Index i = 0; i < x.size(); ++i) {
        x.data()[i] = normal(gen);
    }
    x.row(0).setZero();  // an all-zero row: d = 0 in every block
    if (n > 2) {
        x.row(2) *= 1000.0f;
    }
    return x;
}

::testing::AssertionResult identical(const Matrix& got, const Matrix& want) {
    if (got.rows() != want.rows() || got.cols() != want.cols()) {
        return ::testing::AssertionFailure() << "shape " << got.rows() << "x" << got.cols();
    }
    for (Eigen::Index i = 0; i < got.size(); ++i) {
        if (std::bit_cast<std::uint32_t>(got.data()[i]) !=
            std::bit_cast<std::uint32_t>(want.data()[i])) {
            return ::testing::AssertionFailure()
                   << "element (" << i / got.cols() << ", " << i % got.cols()
                   << "): " << got.data()[i] << " vs " << want.data()[i];
        }
    }
    return ::testing::AssertionSuccess();
}

class EveryType : public ::testing::TestWithParam<GgmlType> {};

// 37 rows (two full AVX2 panels of 8 … and a partial AVX-512 panel of 16), 45 weight rows (a
// partial tile), depth 512 (two K blocks, sixteen legacy blocks), a bias, rows 3…47 of W.
TEST_P(EveryType, EveryKernelGivesTheScalarReferencesBits) {
    const GgmlType type = GetParam();
    const BlockMatrix w = randomBlocks(type, 50, 512, 7);
    const Matrix x = randomActivations(37, 512, 8);
    const Vector bias = Vector::LinSpaced(45, -1.0f, 1.0f);
    const Matrix want = q8ProductScalar(x, w, 3, 45, bias.data());
    ASSERT_TRUE(want.allFinite());
    for (const Q8Kernel& kernel : q8KernelsOnThisCpu()) {
        SCOPED_TRACE(kernel.isa);
        EXPECT_TRUE(identical(q8ProductWith(kernel, x, w, 3, 45, bias.data()), want));
    }
}

// A row's outputs do not depend on its neighbours, on n, on the slice of W or on the threads.
TEST_P(EveryType, BitsDoNotDependOnTheSplit) {
    const GgmlType type = GetParam();
    const BlockMatrix w = randomBlocks(type, 130, 256, 9);
    const Matrix x = randomActivations(20, 256, 10);
    const Matrix all = q8Product(x, w, 0, 130);
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const Matrix serial = q8Product(x, w, 0, 130);
    omp_set_num_threads(threads);
    EXPECT_TRUE(identical(serial, all));
    EXPECT_TRUE(identical(q8Product(x.middleRows(5, 3), w, 0, 130), all.middleRows(5, 3)));
    EXPECT_TRUE(identical(q8Product(x, w, 70, 60), all.middleCols(70, 60)));
}

INSTANTIATE_TEST_SUITE_P(Q8Kernel, EveryType, ::testing::ValuesIn(kSupported),
                         [](const auto& param) {
                             return std::string(io::ggmlTypeName(param.param));
                         });

TEST(Q8Kernel, Avx512VnniRunsWhereTheCpuHasIt) {
    __builtin_cpu_init();
    const bool vnni = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
    EXPECT_EQ(q8KernelsOnThisCpu().size(), vnni ? 2u : 1u);
    if (!vnni) {
        GTEST_SKIP() << "no AVX-512 VNNI here: only the AVX2 kernel was compared";
    }
}

TEST(Q8Kernel, TypesWithoutAnIntegerDotAreRefusedByName) {
    for (const GgmlType type :
         {GgmlType::Q4_1, GgmlType::Q5_1, GgmlType::Q8_K, GgmlType::F16, GgmlType::IQ4_XS}) {
        EXPECT_FALSE(q8ActivationType(type).has_value());
        EXPECT_EQ(q8Unsupported(type),
                  std::string(io::ggmlTypeName(type)) + " weights are not supported in 8-bit mode");
    }
    BlockMatrix w = randomBlocks(GgmlType::Q8_0, 4, 64, 1);
    w.type = GgmlType::Q4_1;
    testing::expectError<InvalidArgument>([&] { q8Product(Matrix::Zero(1, 64), w, 0, 4); },
                                          {"Q4_1 weights are not supported in 8-bit mode"});
    EXPECT_EQ(q8ActivationType(GgmlType::Q4_K), GgmlType::Q8_K);
    EXPECT_EQ(q8ActivationType(GgmlType::Q5_0), GgmlType::Q8_0);
    EXPECT_TRUE(q8Unsupported(GgmlType::Q6_K).empty());
}

TEST(Q8Kernel, ShapesAreChecked) {
    const BlockMatrix w = randomBlocks(GgmlType::Q8_0, 4, 64, 1);
    testing::expectError<InvalidArgument>(
        [&] { q8Product(Matrix::Zero(2, 32), w, 0, 4); },
        {"8-bit product: rows of 32 values against weights of 64"});
    testing::expectError<InvalidArgument>([&] { q8Product(Matrix::Zero(2, 64), w, 2, 3); },
                                          {"8-bit product: rows [2, 5) of a matrix of 4"});
    EXPECT_EQ(q8Product(Matrix::Zero(0, 64), w, 0, 4).rows(), 0);
}

}  // namespace
}  // namespace attnscope::ops::detail
