// What the 8-bit product reads from a block of quantized weights: its values as small signed
// integers with integer scales per group, and the block's float scales, as ggml's vec_dot
// functions see them (src/ggml-cpu/quants.c, the *_generic versions). Internal to attnscope_core.
//
// A weight of group g of a block is   d · scale_g · code − dmin · min_g   (the second term only for
// types with a minimum), so its dot product with an 8-bit activation block (d_x, codes a) is
//   d·d_x · S − dmin·d_x · M,   S = Σ_g scale_g Σ_{k∈g} code_k a_k,   M = Σ_g min_g Σ_{k∈g} a_k,
// two exact integers. The legacy types (Q4_0, Q5_0, Q8_0) are one group of 32 with scale 1.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnscope/io/ggml_types.h"

namespace attnscope::ops::detail {

// One block of one weight row, decoded.
struct BlockScales {
    std::int32_t scale[16];  // per group; 1 for the legacy types
    std::int32_t min[16];    // per group, types with a minimum; else unset
    float d = 0.0f;          // the block's f16 d, widened
    float dmin = 0.0f;       // its f16 dmin, types with a minimum
};

// How one weight type is read.
struct Q8Format {
    io::GgmlType weights;
    io::GgmlType activations;  // Q8_0 or Q8_K
    int blockElements;         // 32 or 256
    int blockBytes;
    int groups;      // scale groups per block: 1 (legacy), 8 (groups of 32) or 16 (of 16)
    bool hasMin;     // Q2_K, Q4_K, Q5_K
    int maxAbsCode;  // largest |code|: 128 (Q8_0), 32 (Q6_K), 31, 16, 15, 8, 4, 3
    // Writes the block's blockElements codes, in element order, and its scales.
    void (*decode)(const std::byte* block, std::int8_t* codes, BlockScales& scales);
};

// The format of a weight type the 8-bit product takes, or nullptr.
const Q8Format* q8Format(io::GgmlType weights);

// The format of a weight type, or InvalidArgument "<type> weights are not supported in 8-bit
// mode".
const Q8Format& requireQ8Format(io::GgmlType weights);

// An f16 bit pattern widened to fp32 (exact).
float halfToFloat(std::uint16_t bits);

// fp32 to the nearest f16 bit pattern, ties to even, as F16C's vcvtps2ph and ggml's
// GGML_FP32_TO_FP16 round it (subnormals kept, overflow to infinity).
std::uint16_t floatToHalf(float value);

}  // namespace attnscope::ops::detail
