// The weights an op takes: a linear layer (fp32 or kept in half precision) and a norm's scale
// and shift. Owned by the ops so the primitives do not depend on the model layer;
// model::Weights is built from them.
#pragma once

#include <cstdint>

#include "attnscope/base/tensor.h"

namespace attnscope::ops {

// A weight matrix kept in the half precision it was stored in (F16 or BF16 bit patterns),
// [out, in]; widened to fp32 a block of rows at a time inside each product (ops::linear), so a
// model twice the size of fp32 memory still opens.
struct HalfMatrix {
    Eigen::Matrix<std::uint16_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> bits;
    bool bfloat16 = false;  // false: IEEE F16
};

struct Linear {
    Matrix weight;    // [out, in] fp32; empty when `half` holds the weights
    HalfMatrix half;  // [out, in]; empty unless loaded with WeightPrecision::AsStored
    Vector bias;      // [out]; size 0 when the layer has none

    bool isHalf() const { return half.bits.size() > 0; }

    bool empty() const { return !isHalf() && weight.size() == 0; }

    Eigen::Index outputs() const { return isHalf() ? half.bits.rows() : weight.rows(); }
};

struct Norm {
    Vector weight;  // [dModel]
    Vector bias;    // [dModel]; size 0 for RMSNorm-style layers
};

}  // namespace attnscope::ops
