// Splits a one-row product over the compute threads in jobs of whole row groups; the kernels
// (row_kernel*.h) do the arithmetic. See row_kernel.h for why a second kernel exists at all.
#include "row_product.h"

#include <algorithm>
#include <string_view>

#include <omp.h>

#include "q8_0_groups.h"
#include "weight_product.h"

namespace attnscope::ops::detail {

namespace {

// Rows of W one job takes: a multiple of every kernel's rows per pass (AVX-512 128, AVX2 32),
// small enough that a 2048-row projection splits evenly over the threads.
constexpr Eigen::Index kJobRows = 128;

// Below this many weights one thread is quicker than waking the others.
constexpr Eigen::Index kParallelWeights = 1 << 16;

// Jobs end at multiples of kJobRows of W's rows, so their groups of 16 are whole (but for the
// range's ends).
void runJobs(const RowKernel& kernel, const Matrix& x, const BlockMatrix& b, Eigen::Index first,
             Eigen::Index count, const float* bias, float* y, bool parallel) {
    const Eigen::Index j0 = first / kJobRows;
    const Eigen::Index jobs = (first + count + kJobRows - 1) / kJobRows - j0;
    const auto* base = reinterpret_cast<const std::uint8_t*>(b.bytes.data());
#pragma omp parallel for schedule(static) if (parallel)
    for (Eigen::Index j = 0; j < jobs; ++j) {
        const Eigen::Index r0 = std::max(first, (j0 + j) * kJobRows);
        const Eigen::Index r1 = std::min(first + count, (j0 + j + 1) * kJobRows);
        kernel.q8_0(RowJob{x.data(), b.cols, base, b.rowBytes, groupsOf(b), r0, r1,
                           y + (r0 - first), bias ? bias + (r0 - first) : nullptr});
    }
}

}  // namespace

bool rowProductTakes(const Matrix& x, const Linear& w) {
    return x.rows() == 1 && w.isBlocks() && w.blocks.grouped;
}

Matrix rowProduct(const Matrix& x, const Linear& w, Eigen::Index first, Eigen::Index count,
                  const float* bias) {
    eigen_assert(rowProductTakes(x, w) && x.cols() == w.inputs());
    Matrix y(1, count);
    const bool parallel = count * w.inputs() >= kParallelWeights && omp_get_max_threads() > 1;
    runJobs(rowKernel(), x, w.blocks, first, count, bias, y.data(), parallel);
    return y;
}

Matrix rowProductWith(const RowKernel& kernel, const Matrix& x, const Linear& w, Eigen::Index first,
                      Eigen::Index count, const float* bias) {
    eigen_assert(rowProductTakes(x, w) && x.cols() == w.inputs());
    Matrix y(1, count);
    runJobs(kernel, x, w.blocks, first, count, bias, y.data(), false);
    return y;
}

const RowKernel& rowKernel() {
    static const RowKernel kernel =
        std::string_view(weightKernel().isa) == "avx512" ? avx512RowKernel() : avx2RowKernel();
    return kernel;
}

}  // namespace attnscope::ops::detail
