// The 8-bit product one output at a time, with the integers of ggml's vec_dot written out: the
// reference for the kernels (q8_kernel_impl.h gives the same bits) and the portable fallback.
// Built with -ffp-contract=off: the chain's fused multiply-adds are the explicit std::fma.
#include <cmath>
#include <vector>

#include <omp.h>

#include "q8_activations.h"
#include "q8_blocks.h"
#include "q8_product_detail.h"

namespace attnscope::ops::detail {

namespace {

// One weight row (codes and per-block scales, decoded) · activation row c.
float rowDot(const Q8Format& f, const std::vector<std::int8_t>& codes,
             const std::vector<BlockScales>& scales, const QuantizedRows& q, Eigen::Index c) {
    const int groupSize = f.blockElements / f.groups;
    const std::int8_t* a = q.row(c);
    float acc = 0.0f;
    for (Eigen::Index b = 0; b < q.blocks; ++b) {
        const BlockScales& s = scales[static_cast<std::size_t>(b)];
        const std::int8_t* w = codes.data() + b * f.blockElements;
        const std::int8_t* x = a + b * f.blockElements;
        std::int32_t sum = 0;      // S: Σ_g scale_g Σ_{k∈g} w_k x_k
        std::int32_t minimum = 0;  // M: Σ_g min_g Σ_{k∈g} x_k
        for (int g = 0; g < f.groups; ++g) {
            std::int32_t dot = 0;
            std::int32_t xs = 0;
            for (int k = g * groupSize; k < (g + 1) * groupSize; ++k) {
                dot += w[k] * x[k];
                xs += x[k];
            }
            sum += s.scale[g] * dot;
            minimum += f.hasMin ? s.min[g] * xs : 0;
        }
        const float dx = q.d[static_cast<std::size_t>(c * q.blocks + b)];
        const float ds = s.d * dx;
        acc = std::fma(ds, static_cast<float>(sum), acc);
        if (f.hasMin) {
            const float dm = s.dmin * dx;
            acc = std::fma(-dm, static_cast<float>(minimum), acc);
        }
    }
    return acc;
}

}  // namespace

Matrix q8ProductScalar(const Eigen::Ref<const Matrix>& x, const BlockMatrix& w, Eigen::Index first,
                       Eigen::Index count, const float* bias) {
    checkQ8Operands(x, w, first, count);
    const Q8Format& f = requireQ8Format(w.type);
    const QuantizedRows q = quantizeRows(x, f.activations);
    Matrix y(x.rows(), count);
#pragma omp parallel
    {
        std::vector<std::int8_t> codes(static_cast<std::size_t>(w.cols));
        std::vector<BlockScales> scales(static_cast<std::size_t>(q.blocks));
#pragma omp for schedule(static)
        for (Eigen::Index r = 0; r < count; ++r) {
            const std::byte* row = w.bytes.data() + (first + r) * w.rowBytes;
            for (Eigen::Index b = 0; b < q.blocks; ++b) {
                f.decode(row + b * f.blockBytes, codes.data() + b * f.blockElements,
                         scales[static_cast<std::size_t>(b)]);
            }
            for (Eigen::Index c = 0; c < x.rows(); ++c) {
                const float dot = rowDot(f, codes, scales, q, c);
                y(c, r) = bias ? dot + bias[r] : dot;
            }
        }
    }
    return y;
}

}  // namespace attnscope::ops::detail
