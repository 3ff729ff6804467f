// The operands of the 8-bit kernels in their layouts (q8_kernel.h): quantized activation rows
// interleaved into panels, and blocks of weight rows decoded into codes and integer scales.
// Internal to attnscope_core.
#pragma once

#include <cstdint>
#include <vector>

#include "attnscope/base/tensor.h"
#include "attnscope/ops/weight_types.h"
#include "q8_activations.h"
#include "q8_blocks.h"
#include "q8_kernel.h"

namespace attnscope::ops::detail {

// Every row of a QuantizedRows, in panels of `lanes` rows (the last zero-padded).
class ActPanels {
public:
    // signedCodes: the codes as they are (AVX2 with Q8_0 weights); else code + 128.
    ActPanels(const QuantizedRows& q, int lanes, bool signedCodes);

    Eigen::Index panels() const { return panels_; }

    Q8ActPanel panel(Eigen::Index p) const;

private:
    Eigen::Index lanes_;
    Eigen::Index rows_;
    Eigen::Index depth_;
    Eigen::Index blocks_;
    Eigen::Index panels_;
    std::vector<std::uint8_t> codes_;  // [panels][depth / 4][lanes][4]
    std::vector<float> d_;             // [panels][blocks][lanes]
    std::vector<std::int16_t> sums_;   // Q8_K: [panels][blocks][8][lanes][2]

    void pack(const QuantizedRows& q, Eigen::Index p, bool signedCodes);
};

// A block of weight rows decoded for a kernel; reused from block to block by one thread.
class DecodedRows {
public:
    // Rows [first, first + count) of w, then zero rows up to `padded` rows.
    void decode(const BlockMatrix& w, const Q8Format& f, Eigen::Index first, Eigen::Index count,
                Eigen::Index padded, bool signedCodes, bool pairedScales);

    const Q8WeightRows& view() const { return view_; }

private:
    std::vector<std::int8_t> codes_;
    std::vector<float> d_;
    std::vector<float> dmin_;
    std::vector<std::int32_t> offset_;
    std::vector<std::int32_t> scales_;
    std::vector<std::int32_t> minima_;
    Q8WeightRows view_{};

    void decodeRow(const std::byte* row, const Q8Format& f, Eigen::Index r, Eigen::Index blocks,
                   bool signedCodes, bool pairedScales);
};

}  // namespace attnscope::ops::detail
