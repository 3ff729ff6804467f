// Reading weights kept as stored in memory — half precision (HalfMatrix, F16/BF16 bits) or
// ggml blocks (BlockMatrix, a quantized GGUF tensor): the one place where they are widened to
// fp32. Widening is exact (every F16 and BF16 value is an fp32 value; a block's values are what
// ggml's dequantization gives), so a stored load computes the same numbers as an fp32 load of
// the widened weights; only the memory differs. Pure functions; thread-safe. Ids are not
// range-checked here: callers check them against the vocabulary first (forward::runForward does).
#pragma once

#include <cstdint>
#include <span>

#include "attnscope/base/tensor.h"
#include "attnscope/ops/weight_types.h"

namespace attnscope::ops {

// Rows [first, first + count) of `h`, widened into `out` (resized to [count, cols]).
void widenRows(const HalfMatrix& h, Eigen::Index first, Eigen::Index count, Matrix& out);

// Rows [first, first + count) of a stored (isStored) weight matrix, widened into `out`.
void widenRows(const Linear& w, Eigen::Index first, Eigen::Index count, Matrix& out);

// x·Wᵀ (+ bias[0 … count), when given) for x [n, in] and W = rows [first, first + count) of a
// stored weight matrix -> [n, count], widening one block of W's rows at a time so the fp32
// copy in flight stays small whatever the size of W.
Matrix storedProduct(const Matrix& x, const Linear& w, Eigen::Index first, Eigen::Index count,
                     const float* bias = nullptr);

// Rearranges a Q8_0 matrix multiplied exactly (not with 8-bit activations) into groups of 16
// interleaved rows, which the one-row product of every generation step reads as one stream;
// every other reader widens it exactly as before. Returns whether it did (other types, a matrix
// already grouped or of fewer than 16 rows: untouched). Call once, at load.
bool groupRows(BlockMatrix& b);

// The rows `ids` of a weight matrix, fp32 or stored, as fp32 [ids.size(), in]: an embedding
// lookup that widens only the rows asked for.
Matrix weightRows(const Linear& w, std::span<const std::int32_t> ids);

}  // namespace attnscope::ops
