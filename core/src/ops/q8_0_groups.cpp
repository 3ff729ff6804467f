#include "q8_0_groups.h"

#include <cstring>
#include <vector>

#include "attnscope/io/ggml_blocks.h"
#include "attnscope/ops/half_matrix.h"

namespace attnscope::ops {

namespace {

constexpr Eigen::Index kBlockBytes = 34;
constexpr Eigen::Index kCodes = 32;
constexpr Eigen::Index kRows = detail::kQ8_0GroupRows;
constexpr Eigen::Index kScaleBytes = 2 * kRows;

// One group's rows, as stored ([16][rowBytes]), into the interleaved layout.
void interleaveGroup(const std::byte* stored, Eigen::Index rowBytes, std::byte* out) {
    for (Eigen::Index b = 0; b < rowBytes / kBlockBytes; ++b) {
        std::byte* block = out + b * kRows * kBlockBytes;
        for (Eigen::Index r = 0; r < kRows; ++r) {
            const std::byte* src = stored + r * rowBytes + b * kBlockBytes;
            std::memcpy(block + 2 * r, src, 2);
            for (Eigen::Index k = 0; k < kCodes; ++k) {
                block[kScaleBytes + k * kRows + r] = src[2 + k];
            }
        }
    }
}

}  // namespace

bool groupRows(BlockMatrix& b) {
    if (b.grouped || b.type != io::GgmlType::Q8_0 || b.int8Activations || b.rows < kRows ||
        b.cols % kCodes != 0 || b.rowBytes != b.cols / kCodes * kBlockBytes) {
        return false;
    }
    std::vector<std::byte> group(static_cast<std::size_t>(kRows * b.rowBytes));
    for (Eigen::Index g = 0; g < b.rows / kRows; ++g) {
        std::byte* at = b.bytes.data() + g * kRows * b.rowBytes;
        interleaveGroup(at, b.rowBytes, group.data());
        std::memcpy(at, group.data(), group.size());
    }
    b.grouped = true;
    return true;
}

namespace detail {

Eigen::Index groupsOf(const BlockMatrix& b) {
    return b.grouped ? b.rows / kRows : 0;
}

void dequantizeGrouped(const BlockMatrix& b, Eigen::Index first, Eigen::Index count, float* out) {
    const Eigen::Index grouped = groupsOf(b) * kRows;
    for (Eigen::Index i = 0; i < count; ++i) {
        const Eigen::Index r = first + i;
        float* y = out + i * b.cols;
        if (r >= grouped) {  // after the groups: as stored
            const std::span<const std::byte> row(b.bytes.data() + r * b.rowBytes,
                                                 static_cast<std::size_t>(b.rowBytes));
            io::dequantize(b.type, row, {y, static_cast<std::size_t>(b.cols)});
            continue;
        }
        const std::byte* group = b.bytes.data() + r / kRows * kRows * b.rowBytes;
        const Eigen::Index lane = r % kRows;
        for (Eigen::Index blk = 0; blk < b.cols / kCodes; ++blk) {
            const std::byte* block = group + blk * kRows * kBlockBytes;
            std::uint16_t bits = 0;
            std::memcpy(&bits, block + 2 * lane, 2);
            const auto d = static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(bits));
            for (Eigen::Index k = 0; k < kCodes; ++k) {
                const auto code = static_cast<std::int8_t>(block[kScaleBytes + k * kRows + lane]);
                y[blk * kCodes + k] = static_cast<float>(code) * d;
            }
        }
    }
}

}  // namespace detail

}  // namespace attnscope::ops
