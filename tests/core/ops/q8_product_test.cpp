// The 8-bit-activation product (ops/q8_product.h) against the independent numpy reference's
// cases (tests/reference/q8_product_cases.py, fixture q8_product; the reference is written from
// ggml's C): the activation blocks bit for bit, the integer dot products of every supported
// weight type within the fp32 rounding of their sums, and the deviation from the exact product
// on realistic data, reported (asserted only loosely).
#include "attnscope/ops/q8_product.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "attnscope/io/ggml_blocks.h"
#include "attnscope/io/gguf.h"
#include "attnscope/ops/half_matrix.h"
#include "ops/q8_product_detail.h"

namespace attnscope::ops {
namespace {

namespace fs = std::filesystem;
using io::GgmlType;
using io::GgufFile;
using io::GgufTensor;

const char* const kTypes[] = {"Q4_0", "Q5_0", "Q8_0", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"};

const GgufFile& cases() {
    static const GgufFile file(fs::path(ATTNSCOPE_FIXTURE_DIR) / "q8_product" / "q8_cases.gguf");
    return file;
}

const GgufTensor& tensor(const std::string& name) {
    const GgufTensor* t = cases().tensor(name);
    if (t == nullptr) {
        throw std::runtime_error("q8_cases.gguf has no tensor " + name);
    }
    return *t;
}

Matrix floats(const std::string& name) {
    const GgufTensor& t = tensor(name);
    EXPECT_EQ(t.type, GgmlType::F32) << name;
    Matrix m(t.rows(), t.rowLength());
    std::memcpy(m.data(), t.bytes.data(), t.bytes.size());
    return m;
}

BlockMatrix blocks(const std::string& name) {
    const GgufTensor& t = tensor(name);
    BlockMatrix m;
    m.type = t.type;
    m.rows = t.rows();
    m.cols = t.rowLength();
    m.rowBytes = static_cast<Eigen::Index>(t.bytes.size()) / m.rows;
    m.bytes.assign(t.bytes.begin(), t.bytes.end());
    return m;
}

GgmlType typeNamed(const std::string& name) {
    for (std::uint32_t id = 0; id < 64; ++id) {
        const io::GgmlTypeInfo* info = io::ggmlTypeInfo(id);
        if (info && info->name == name) {
            return info->type;
        }
    }
    throw std::runtime_error("no type " + name);
}

// (a) Every activation row of x and xq quantized as the reference quantized it, byte for byte
// (Q8_0 with ties to even, Q8_K's first-of-the-largest rule, f16 overflow of d, denormals, ±inf).
TEST(Q8Activations, BlocksEqualTheReferenceByteForByte) {
    for (const std::string rows : {"x", "xq"}) {
        const Matrix x = floats(rows);
        for (const std::string type : {"Q8_0", "Q8_K"}) {
            SCOPED_TRACE(rows + "." + type);
            const GgufTensor& want = tensor(rows + "." + type);
            const std::size_t rowBytes = want.bytes.size() / static_cast<std::size_t>(x.rows());
            std::vector<std::byte> got(rowBytes);
            for (Eigen::Index r = 0; r < x.rows(); ++r) {
                quantizeActivationRow(typeNamed(type), {x.row(r).data(), std::size_t(x.cols())},
                                      got);
                const std::byte* ref = want.bytes.data() + static_cast<std::size_t>(r) * rowBytes;
                std::size_t first = rowBytes;
                for (std::size_t i = 0; i < rowBytes && first == rowBytes; ++i) {
                    first = got[i] == ref[i] ? rowBytes : i;
                }
                EXPECT_EQ(first, rowBytes) << "row " << r << " differs from byte " << first;
            }
        }
    }
}

class Q8Dots : public ::testing::TestWithParam<const char*> {};

// (b) Each output equals the reference's float64 sum Σ_b dW·dX·S_b − dminW·dX·M_b of the same
// integers within the rounding of an fp32 chain of `terms` fused multiply-adds whose factors
// were rounded once each: |y − ref| ≤ (terms + 3) · 2⁻²⁴ · Σ_b |terms_b| (+ 1e-37 for
// subnormals). Every kernel gives the scalar reference's bits (bit for bit, not a tolerance).
TEST_P(Q8Dots, EqualTheReferenceSumsWithinFp32Rounding) {
    const std::string type = GetParam();
    const Matrix x = floats("x");
    const BlockMatrix w = blocks("w." + type);
    const Matrix hi = floats("dot." + type + ".hi");
    const Matrix lo = floats("dot." + type + ".lo");
    const Matrix mag = floats("dot." + type + ".mag");
    const auto terms = cases().unsignedAt("attnscope.test.terms." + type);
    ASSERT_TRUE(terms.has_value());
    const Matrix y = detail::q8ProductScalar(x, w, 0, w.rows, nullptr);
    ASSERT_EQ(y.rows(), hi.rows());
    ASSERT_EQ(y.cols(), hi.cols());
    const double unit = std::ldexp(1.0, -24);
    double worst = 0;  // largest |y − ref| in units of 2⁻²⁴ · magnitude
    for (Eigen::Index c = 0; c < y.rows(); ++c) {
        for (Eigen::Index r = 0; r < y.cols(); ++r) {
            const double ref = double(hi(c, r)) + double(lo(c, r));
            const double err = std::abs(double(y(c, r)) - ref);
            const double bound = double(*terms + 3) * unit * double(mag(c, r)) + 1e-37;
            EXPECT_LE(err, bound) << "activation row " << c << ", weight row " << r << ": "
                                  << y(c, r) << " vs " << ref;
            if (mag(c, r) > 0) {
                worst = std::max(worst, err / (unit * double(mag(c, r))));
            }
        }
    }
    std::printf("[ q8 dots ] %s: %u terms, worst error %.2f x 2^-24 of the magnitude\n",
                type.c_str(), unsigned(*terms), worst);
    for (const detail::Q8Kernel& kernel : detail::q8KernelsOnThisCpu()) {
        const Matrix k = detail::q8ProductWith(kernel, x, w, 0, w.rows, nullptr);
        EXPECT_EQ(0, std::memcmp(k.data(), y.data(), sizeof(float) * std::size_t(y.size())))
            << kernel.isa << " differs from the scalar reference";
    }
}

INSTANTIATE_TEST_SUITE_P(Q8Product, Q8Dots, ::testing::ValuesIn(kTypes),
                         [](const auto& param) { return std::string(param.param); });

double relative(const Eigen::MatrixXd& got, const Eigen::MatrixXd& want) {
    return (got - want).norm() / want.norm();
}

// (c) The 8-bit product against the exact product (the same quantized weights, dequantized,
// times fp32 activations, in float64) on realistic rows of depth 4096 against 128 weight rows:
// 32 RMS-normed rows, 32 with six outlier channels, 32 SwiGLU products. Reported; asserted only
// below 6 %. Q8_K's one scale per 256 values (K-quant weights) lets an outlier channel coarsen
// its whole block, Q8_0's per 32 far fewer: that is llama.cpp's arithmetic, not a defect here.
TEST(Q8Deviation, FromTheExactProductOnRealisticData) {
    const Matrix x = floats("real.x");
    const Eigen::MatrixXd xd = x.cast<double>();
    const Eigen::MatrixXd full = xd * floats("real.w").cast<double>().transpose();
    const Eigen::Index third = x.rows() / 3;
    std::printf(
        "[ q8 deviation ] ‖Δ‖/‖y‖ of the 8-bit product against the exact product (rows: "
        "plain | outlier channels | SwiGLU), max |Δ| / max |y|;\n[ q8 deviation ] the "
        "exact fp32 product's ‖Δ‖/‖y‖; for scale, the weight quantization's own\n");
    for (const char* type : kTypes) {
        Linear linear;
        linear.blocks = blocks(std::string("real.w.") + type);
        const BlockMatrix& w = linear.blocks;
        Matrix deq(w.rows, w.cols);
        io::dequantize(w.type, w.bytes, {deq.data(), std::size_t(deq.size())});
        const Eigen::MatrixXd exact = xd * deq.cast<double>().transpose();
        const Eigen::MatrixXd fp32 = storedProduct(x, linear, 0, w.rows).cast<double>();
        const Eigen::MatrixXd q8 = q8Product(x, w, 0, w.rows).cast<double>();
        double kinds[3];
        for (int k = 0; k < 3; ++k) {
            kinds[k] =
                relative(q8.middleRows(k * third, third), exact.middleRows(k * third, third));
            EXPECT_LT(kinds[k], 0.06) << type << ", rows of kind " << k;
        }
        const double worst = (q8 - exact).cwiseAbs().maxCoeff() / exact.cwiseAbs().maxCoeff();
        std::printf(
            "[ q8 deviation ] %-4s 8-bit %.2e | %.2e | %.2e  max %.2e   exact fp32 %.1e"
            "   weights %.2e\n",
            type, kinds[0], kinds[1], kinds[2], worst, relative(fp32, exact),
            relative(exact, full));
        EXPECT_LT(relative(fp32, exact), 1e-5) << type;
    }
}

}  // namespace
}  // namespace attnscope::ops
