// Why a hand-written kernel: Eigen's GEMM (and OpenBLAS's) copies the weight matrix into a
// packed panel layout on every call. For the short inputs users type (tens of tokens) that
// copy is as costly as the arithmetic: 30 % of a BERT-base pass at n = 32 was gemm_pack_lhs.
// Libraries that avoid it pre-pack weights once (ONNX Runtime's MLAS, oneDNN); Debian packages
// oneDNN 2.6 (libdnnl), but it would bring a second compute library, with its own threads and
// weight layouts, for this one product; not tried.
//
// Here the cheap operand is repacked instead (PackedRows) and W is read where it lies; the loops
// are in weight_kernel_impl.h, compiled once per instruction set. This file splits the work into
// blocks of W over the compute threads and picks the kernel for the CPU once.
#include "weight_product.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include <omp.h>

#include "weight_kernel.h"

namespace attnscope::ops::detail {

namespace {

constexpr Eigen::Index kOutputBlock = kOutputBlockRows;  // a multiple of every tile's width

// Long inputs multiply a block of W in slices of this many columns, so a panel's slice
// (16 × 256 floats, 16 KiB) stays in L1 while the block's rows go past it (≈ 8 % faster at
// n = 512). Short inputs take the whole depth at once: their W streams from memory, and
// slicing it cost them ≈ 10 %.
constexpr Eigen::Index kDepthBlock = 256;
constexpr Eigen::Index kSlicedPanels = 8;  // more panels than this: sliced

// A sliced product takes W in jobs of this many rows: each slice of x (n × 256 floats) is then
// read from cache by 192 rows of W rather than 48, and x streams from memory a quarter as
// often. An 8 B model's feed-forward product at n = 512 (4096 × 14336, one thread) went from
// 45–70 to about 100 GFLOP/s (issue 32). The slice of W (192 KiB) and the partial sums of one
// panel stay in L2.
constexpr Eigen::Index kLongOutputBlock = 192;

bool cpuHasAvx512() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
}

// The AVX-512 kernel where the CPU has it, unless ATTNSCOPE_ISA=avx2 asks for the other (to
// measure one against the other; both give the same bits).
WeightKernel chooseKernel() {
    const char* asked = std::getenv("ATTNSCOPE_ISA");
    if (asked != nullptr && std::string_view(asked) == "avx2") {
        return avx2WeightKernel();
    }
    return cpuHasAvx512() ? avx512WeightKernel() : avx2WeightKernel();
}

bool isSliced(const PackedRows& x) {
    return x.panels() > kSlicedPanels && x.depth() > kDepthBlock;
}

// Rows [o0, o1) of W against every panel of x.
void outputBlock(const WeightKernel& kernel, const PackedRows& x, const Eigen::Ref<const Matrix>& w,
                 Eigen::Index o0, Eigen::Index o1, Eigen::Ref<Matrix> y, const float* bias) {
    const bool sliced = isSliced(x);
    Eigen::VectorXf part(sliced ? x.panels() * (o1 - o0) * kPanelRows : 0);
    kernel.outputBlock(BlockJob{x.panel(0), x.rows(), x.depth(), w.data(), w.outerStride(), o0, o1,
                                y.data(), y.outerStride(), bias,
                                sliced ? kDepthBlock : std::max<Eigen::Index>(1, x.depth()),
                                sliced ? part.data() : nullptr});
}

}  // namespace

Eigen::Index jobRows(const PackedRows& x, Eigen::Index outputs, int team) {
    if (!isSliced(x)) {
        return kOutputBlock;
    }
    // Never fewer jobs than threads while 48-row jobs could keep them all busy.
    const Eigen::Index share = (outputs + team - 1) / std::max(1, team);
    const Eigen::Index rounded = (share + kOutputBlock - 1) / kOutputBlock * kOutputBlock;
    return std::clamp(rounded, kOutputBlock, kLongOutputBlock);
}

namespace {

Eigen::Index outputBlocks(Eigen::Index outputs, Eigen::Index step) {
    return (outputs + step - 1) / step;
}

}  // namespace

const WeightKernel& weightKernel() {
    static const WeightKernel kernel = chooseKernel();
    return kernel;
}

PackedRows::PackedRows(Eigen::Index rows, Eigen::Index depth)
    : rows_(rows), depth_(depth), data_(panels() * kPanelRows * depth_) {}

PackedRows::PackedRows(const Eigen::Ref<const Matrix>& x) : PackedRows(x.rows(), x.cols()) {
    for (Eigen::Index p = 0; p < panels(); ++p) {
        pack(x, p);
    }
}

void PackedRows::pack(const Eigen::Ref<const Matrix>& x, Eigen::Index panel) {
    // Column by column, so the writes are contiguous (row by row was 2.5 % of a pass).
    const Eigen::Index first = panel * kPanelRows;
    const Eigen::Index count = std::min(kPanelRows, rows_ - first);
    float* dst = data_.data() + first * depth_;
    for (Eigen::Index k = 0; k < depth_; ++k, dst += kPanelRows) {
        for (Eigen::Index r = 0; r < count; ++r) {
            dst[r] = x(first + r, k);
        }
        for (Eigen::Index r = count; r < kPanelRows; ++r) {
            dst[r] = 0.0f;
        }
    }
}

void productNTSerial(const PackedRows& x, const Eigen::Ref<const Matrix>& w, Eigen::Ref<Matrix> y,
                     const float* bias) {
    productNTWith(weightKernel(), x, w, y, bias);
}

void productNTWith(const WeightKernel& kernel, const PackedRows& x,
                   const Eigen::Ref<const Matrix>& w, Eigen::Ref<Matrix> y, const float* bias) {
    eigen_assert(w.cols() == x.depth() && y.rows() == x.rows() && y.cols() == w.rows());
    const Eigen::Index step = jobRows(x, w.rows(), 1);
    for (Eigen::Index b = 0; b < outputBlocks(w.rows(), step); ++b) {
        const Eigen::Index o0 = b * step;
        outputBlock(kernel, x, w, o0, std::min(w.rows(), o0 + step), y, bias);
    }
}

Matrix productNT(const Eigen::Ref<const Matrix>& x, const Eigen::Ref<const Matrix>& w,
                 const float* bias) {
    eigen_assert(w.cols() == x.cols());
    Matrix y(x.rows(), w.rows());
    PackedRows packed(x.rows(), x.cols());
    const Eigen::Index step = jobRows(packed, w.rows(), omp_get_max_threads());
    const Eigen::Index blocks = outputBlocks(w.rows(), step);
    const WeightKernel& kernel = weightKernel();
    const int team = static_cast<int>(
        std::clamp<Eigen::Index>(omp_get_max_threads(), 1, std::max<Eigen::Index>(1, blocks)));
#pragma omp parallel num_threads(team)
    {
#pragma omp for schedule(static)
        for (Eigen::Index p = 0; p < packed.panels(); ++p) {
            packed.pack(x, p);
        }
#pragma omp for schedule(static)
        for (Eigen::Index b = 0; b < blocks; ++b) {
            const Eigen::Index o0 = b * step;
            outputBlock(kernel, packed, w, o0, std::min(w.rows(), o0 + step), y, bias);
        }
    }
    return y;
}

}  // namespace attnscope::ops::detail
