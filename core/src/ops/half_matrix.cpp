#include "attnscope/ops/half_matrix.h"

#include <algorithm>
#include <bit>

#include <omp.h>

#include "attnscope/io/ggml_blocks.h"
#include "q8_0_groups.h"
#include "weight_product.h"

namespace attnscope::ops {

namespace {

// About 256 KiB of widened weights per block: small beside any layer, large enough that the
// block product still runs at GEMM speed.
constexpr Eigen::Index kBlockFloats = 65536;

}  // namespace

// BF16 is the top half of an fp32 bit pattern; F16 goes through Eigen::half (F16C with
// -march=native).
void widenRows(const HalfMatrix& h, Eigen::Index first, Eigen::Index count, Matrix& out) {
    const Eigen::Index cols = h.bits.cols();
    out.resize(count, cols);
    const std::uint16_t* src = h.bits.data() + first * cols;
    const Eigen::Index n = count * cols;
    float* dst = out.data();
    if (h.bfloat16) {
        for (Eigen::Index i = 0; i < n; ++i) {
            dst[i] = std::bit_cast<float>(static_cast<std::uint32_t>(src[i]) << 16);
        }
    } else {
        const Eigen::Map<const Eigen::Array<Eigen::half, Eigen::Dynamic, 1>> halves(
            reinterpret_cast<const Eigen::half*>(src), n);
        Eigen::Map<Eigen::ArrayXf>(dst, n) = halves.cast<float>();
    }
}

void widenRows(const Linear& w, Eigen::Index first, Eigen::Index count, Matrix& out) {
    if (w.isHalf()) {
        widenRows(w.half, first, count, out);
        return;
    }
    const BlockMatrix& b = w.blocks;
    out.resize(count, b.cols);
    if (b.grouped) {
        detail::dequantizeGrouped(b, first, count, out.data());
        return;
    }
    const auto rowBytes = static_cast<std::size_t>(b.rowBytes);
    const std::span<const std::byte> rows(
        b.bytes.data() + static_cast<std::size_t>(first) * rowBytes,
        static_cast<std::size_t>(count) * rowBytes);
    io::dequantize(b.type, rows, {out.data(), static_cast<std::size_t>(out.size())});
}

Matrix storedProduct(const Matrix& x, const Linear& w, Eigen::Index first, Eigen::Index count,
                     const float* bias) {
    const Eigen::Index outputs = count;
    Matrix y(x.rows(), outputs);
    detail::PackedRows packed(x.rows(), x.cols());
    // Short inputs: about kBlockFloats of widened W, which stays in cache while the few panels
    // of x go past. Long ones: the product's own job size, which keeps x's slices in cache
    // instead (weight_product.cpp), at the cost of a larger widened block.
    const Eigen::Index small =
        std::max<Eigen::Index>(16, kBlockFloats / std::max<Eigen::Index>(1, w.inputs()));
    const Eigen::Index job = detail::jobRows(packed, outputs, omp_get_max_threads());
    const Eigen::Index block = job > detail::kOutputBlockRows ? std::max(small, job) : small;
    const Eigen::Index blocks = (outputs + block - 1) / block;
    // Each thread widens its own blocks and multiplies them while they are still in cache;
    // every output element is one chain over k, so the split does not change any bit.
    const int team = static_cast<int>(
        std::clamp<Eigen::Index>(omp_get_max_threads(), 1, std::max<Eigen::Index>(1, blocks)));
#pragma omp parallel num_threads(team)
    {
        Matrix widened;
#pragma omp for schedule(static)
        for (Eigen::Index p = 0; p < packed.panels(); ++p) {
            packed.pack(x, p);
        }
#pragma omp for schedule(static)
        for (Eigen::Index b = 0; b < blocks; ++b) {
            const Eigen::Index rows = std::min(block, outputs - b * block);
            widenRows(w, first + b * block, rows, widened);
            detail::productNTSerial(packed, widened, y.middleCols(b * block, rows),
                                    bias ? bias + b * block : nullptr);
        }
    }
    return y;
}

Matrix weightRows(const Linear& w, std::span<const std::int32_t> ids) {
    const auto n = static_cast<Eigen::Index>(ids.size());
    if (!w.isStored()) {
        Matrix out(n, w.weight.cols());
        for (Eigen::Index i = 0; i < n; ++i) {
            out.row(i) = w.weight.row(ids[static_cast<std::size_t>(i)]);
        }
        return out;
    }
    Matrix out(n, w.inputs());
    Matrix row;
    for (Eigen::Index i = 0; i < n; ++i) {
        widenRows(w, ids[static_cast<std::size_t>(i)], 1, row);
        out.row(i) = row;
    }
    return out;
}

}  // namespace attnscope::ops
