// The weights an op takes: a linear layer (fp32 or kept in half precision) and a norm's scale
// and shift. Owned by the ops so the primitives do not depend on the model layer;
// model::Weights is built from them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attnscope/base/tensor.h"
#include "attnscope/io/ggml_types.h"

namespace attnscope::ops {

// A weight matrix kept in the half precision it was stored in (F16 or BF16 bit patterns),
// [out, in]; widened to fp32 a block of rows at a time inside each product (ops::linear), so a
// model twice the size of fp32 memory still opens.
struct HalfMatrix {
    Eigen::Matrix<std::uint16_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> bits;
    bool bfloat16 = false;  // false: IEEE F16
};

// A weight matrix kept in the ggml block format it was stored in (a quantized GGUF tensor):
// `rows` rows of `rowBytes` bytes each, a row being cols / blockElements whole blocks (GGUF
// rows never share a block). Widened to fp32 a block of rows at a time inside each product,
// exactly as ggml dequantizes them (io/ggml_blocks.h).
struct BlockMatrix {
    std::vector<std::byte> bytes;  // rows × rowBytes
    io::GgmlType type = io::GgmlType::Q8_0;
    Eigen::Index rows = 0;
    Eigen::Index cols = 0;
    Eigen::Index rowBytes = 0;
    // Multiplied with 8-bit activations (ops/q8_product.h, model::ActivationPrecision::Int8)
    // rather than exactly; set only for types the 8-bit product takes.
    bool int8Activations = false;
    // Q8_0 rows interleaved in groups of 16 for the one-row product of generation steps
    // (ops::groupRows; the layout in core/src/ops/q8_0_groups.h); widenRows reads either layout.
    bool grouped = false;
};

// Exactly one of weight, half and blocks holds the matrix.
struct Linear {
    Matrix weight;       // [out, in] fp32; empty when `half` or `blocks` holds the weights
    HalfMatrix half;     // [out, in]; empty unless loaded with WeightPrecision::AsStored
    BlockMatrix blocks;  // [out, in]; empty unless a quantized GGUF tensor
    Vector bias;         // [out]; size 0 when the layer has none

    bool isHalf() const { return half.bits.size() > 0; }

    bool isBlocks() const { return blocks.rows > 0; }

    // Kept as stored (half or blocks): read through ops::widenRows, never `weight`.
    bool isStored() const { return isHalf() || isBlocks(); }

    bool empty() const { return !isStored() && weight.size() == 0; }

    Eigen::Index outputs() const {
        return isHalf() ? half.bits.rows() : isBlocks() ? blocks.rows : weight.rows();
    }

    Eigen::Index inputs() const {
        return isHalf() ? half.bits.cols() : isBlocks() ? blocks.cols : weight.cols();
    }
};

struct Norm {
    Vector weight;  // [dModel]
    Vector bias;    // [dModel]; size 0 for RMSNorm-style layers
};

}  // namespace attnscope::ops
