// Q8_0 weights rearranged for the one-row product (row_kernel.h), as ggml's CPU back end
// repacks its blocks for its own kernels: every whole group of 16 rows, block by block, holds
// the 16 rows' f16 scales (32 bytes), then code k of the 16 rows side by side for k = 0 … 31
// (512 bytes): 16 × 34 bytes, the bytes the 16 rows' block took as stored, so the matrix keeps
// its size and each group is one stream through memory. Rows after the last whole group stay as
// stored. Done once, at load (ops::groupRows); read back exactly (dequantizeRows). Internal to
// attnscope_core.
#pragma once

#include "attnscope/base/tensor.h"
#include "attnscope/ops/weight_types.h"

namespace attnscope::ops::detail {

inline constexpr Eigen::Index kQ8_0GroupRows = 16;

// The groups interleaved in `b`: rows / 16 when b.grouped, else 0.
Eigen::Index groupsOf(const BlockMatrix& b);

// Rows [first, first + count) of a grouped Q8_0 matrix, dequantized into out (count × cols
// floats, row-major): code × scale, the values io::dequantize gives for the stored layout.
void dequantizeGrouped(const BlockMatrix& b, Eigen::Index first, Eigen::Index count, float* out);

}  // namespace attnscope::ops::detail
