// Dequantization of ggml's block formats: the values a GGUF tensor stores, as fp32.
//
// Written by hand from ggml's src/ggml-common.h (block layouts) and the dequantize_row_*
// functions of src/ggml-quants.c, which define what a quantized weight means. Each value
// equals ggml's bit for bit, signed zeros, denormals and infinities included: the C code's
// products (an f16 scale times small integers) are exact in fp32, so only the final sum of the
// types with a minimum (Q4_1, Q5_1, Q2_K, Q4_K, Q5_K) rounds, and a fused multiply-add would
// round it the same way; the file is built without contraction all the same, and the build
// never flushes denormals. Checked against an independent numpy reference
// (tests/reference/ggml_blocks.py), itself checked against a build of ggml.
#pragma once

#include <cstddef>
#include <span>

#include "attnscope/io/ggml_types.h"

namespace attnscope::io {

// Writes out.size() values (a whole number of `type`'s blocks) decoded from `src`, which holds
// exactly out.size() / blockElements blocks. Types that are not readable (GgmlTypeInfo) and a
// size that is not whole blocks throw InvalidArgument: callers validate tensors first.
void dequantize(GgmlType type, std::span<const std::byte> src, std::span<float> out);

}  // namespace attnscope::io
