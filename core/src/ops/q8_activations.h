// Activation rows quantized to 8 bits as llama.cpp quantizes them before an integer dot product
// (q8_product.h says which rounding). Internal to attnscope_core.
#pragma once

#include <cstdint>
#include <vector>

#include "attnscope/base/tensor.h"
#include "attnscope/io/ggml_types.h"

namespace attnscope::ops::detail {

// Rows of x as Q8_0 or Q8_K blocks, kept apart by field rather than as ggml's packed blocks.
struct QuantizedRows {
    io::GgmlType type = io::GgmlType::Q8_0;
    Eigen::Index rows = 0;
    Eigen::Index depth = 0;
    Eigen::Index blocks = 0;          // per row: depth / 32 or depth / 256
    std::vector<std::int8_t> codes;   // [rows][depth]
    std::vector<float> d;             // [rows][blocks]: Q8_0's f16 d widened, Q8_K's f32 d
    std::vector<std::uint16_t> half;  // Q8_0: [rows][blocks], the f16 d as stored
    std::vector<std::int16_t> sums;   // Q8_K: [rows][blocks][16], sums of 16 codes

    const std::int8_t* row(Eigen::Index r) const { return codes.data() + r * depth; }
};

// x [n, depth] quantized row by row (on the compute threads); depth must be whole blocks.
QuantizedRows quantizeRows(const Eigen::Ref<const Matrix>& x, io::GgmlType type);

}  // namespace attnscope::ops::detail
