// x·Wᵀ for a weight matrix W kept as stored ([out, in], row-major): the product every linear
// layer runs. Internal to attnscope_core.
#pragma once

#include "attnscope/base/tensor.h"
#include "weight_kernel.h"

namespace attnscope::ops::detail {

// x's rows repacked once per product so the kernel can load 8 or 16 rows of one column as
// vectors: panels of kPanelRows rows, each stored column by column (for every k, the panel's
// kPanelRows values of column k, contiguous), the last panel zero-padded.
class PackedRows {
public:
    static constexpr Eigen::Index kPanelRows = detail::kPanelRows;

    // Room for x, not yet packed: pack() each panel (callers split the panels over threads).
    PackedRows(Eigen::Index rows, Eigen::Index depth);
    explicit PackedRows(const Eigen::Ref<const Matrix>& x);

    void pack(const Eigen::Ref<const Matrix>& x, Eigen::Index panel);

    Eigen::Index rows() const { return rows_; }

    Eigen::Index depth() const { return depth_; }

    Eigen::Index panels() const { return (rows_ + kPanelRows - 1) / kPanelRows; }

    const float* panel(Eigen::Index p) const { return data_.data() + p * kPanelRows * depth_; }

private:
    Eigen::Index rows_;
    Eigen::Index depth_;
    Eigen::VectorXf data_;  // aligned for AVX loads; not zeroed first (every float is written)
};

// y = x · wᵀ (+ bias, one per row of w, when given); x [n, in], w [out, in], y [n, out], on the
// compute threads (they split x's panels, then W's rows). Every output element is one fused
// multiply-add chain over k = 0 … in−1 from zero, then one add of its bias, so its bits do not
// depend on the thread count, on n, or on which rows were multiplied together: a recomputed
// layer, or any subset of its rows, repeats its bits exactly.
Matrix productNT(const Eigen::Ref<const Matrix>& x, const Eigen::Ref<const Matrix>& w,
                 const float* bias = nullptr);

// The same into a given (possibly strided) y, on the calling thread only: for callers that
// already split the work (the half-precision product threads over blocks of W).
void productNTSerial(const PackedRows& x, const Eigen::Ref<const Matrix>& w, Eigen::Ref<Matrix> y,
                     const float* bias = nullptr);

// Rows of W one job of a product of a short input takes.
inline constexpr Eigen::Index kOutputBlockRows = 48;

// Rows of W one job of the product takes for this x, when `team` threads share `outputs` rows:
// 48, or up to 192 for long inputs (more than 8 panels, depth over 256), which the kernel
// takes a slice of the depth at a time. productNTSerial multiplies its W in such jobs; callers
// that split W themselves (storedProduct) give each thread whole jobs.
Eigen::Index jobRows(const PackedRows& x, Eigen::Index outputs, int team);

// productNTSerial with a given kernel rather than the CPU's (tests compare the kernels' bits).
void productNTWith(const WeightKernel& kernel, const PackedRows& x,
                   const Eigen::Ref<const Matrix>& w, Eigen::Ref<Matrix> y, const float* bias);

// The kernel every product uses: AVX-512 where the CPU has it (unless ATTNSCOPE_ISA=avx2),
// else AVX2. Chosen on first use, then fixed for the process, so a recomputed head repeats its
// bits.
const WeightKernel& weightKernel();

}  // namespace attnscope::ops::detail
