// The one-row product's loops (row_kernel.h), written once over a vector type and instantiated
// by each instruction set's translation unit (row_kernel_avx2.cpp, row_kernel_avx512.cpp).
// Everything here has internal linkage and uses no library templates (see weight_kernel.h).
#pragma once

#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "row_kernel_impl.h needs -mavx2 -mfma -mf16c (see core/src/ops/CMakeLists.txt)"
#endif

#include <cstddef>
#include <cstdint>

#include "kernel_intrinsics.h"
#include "row_kernel.h"

namespace attnscope::ops::detail {

namespace {

using Index = std::ptrdiff_t;

// Q8_0 and its interleaved groups (q8_0_groups.h, which states the layout; repeated here
// because this header may include nothing of the library's).
constexpr Index kBlockBytes = 34;  // f16 scale, 32 int8 codes
constexpr Index kBlockCodes = 32;
constexpr Index kGroupRows = 16;
constexpr Index kGroupBlockBytes = kGroupRows * kBlockBytes;  // 16 scales, then 32 × 16 codes
constexpr Index kGroupScaleBytes = kGroupRows * 2;

std::uint16_t halfAt(const std::uint8_t* p) {
    return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}

// G groups of 16 rows from row `r`: G independent chains per lane, so the fused multiply-adds
// of one chain do not wait on each other's latency; each group one stream through memory.
template <class Vec, int G>
void rowGroups(const RowJob& job, Index r) {
    constexpr int kVectors = kGroupRows / Vec::kLanes;
    typename Vec::T acc[G][kVectors];
    const std::uint8_t* group[G];
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) {
        group[g] = job.w + (r + g * kGroupRows) * job.rowBytes;
#pragma GCC unroll 2
        for (int v = 0; v < kVectors; ++v) {
            acc[g][v] = Vec::zero();
        }
    }
    const Index blocks = job.depth / kBlockCodes;
    for (Index b = 0; b < blocks; ++b) {
        typename Vec::T scale[G][kVectors];
#pragma GCC unroll 8
        for (int g = 0; g < G; ++g) {
            const std::uint8_t* block = group[g] + b * kGroupBlockBytes;
#pragma GCC unroll 2
            for (int v = 0; v < kVectors; ++v) {
                scale[g][v] = Vec::halves(block + 2 * v * Vec::kLanes);
            }
        }
        const float* xb = job.x + b * kBlockCodes;
#pragma GCC unroll 8
        for (int k = 0; k < kBlockCodes; ++k) {
            const typename Vec::T xk = Vec::broadcast(xb + k);
#pragma GCC unroll 8
            for (int g = 0; g < G; ++g) {
                const std::uint8_t* codes =
                    group[g] + b * kGroupBlockBytes + kGroupScaleBytes + k * kGroupRows;
#pragma GCC unroll 2
                for (int v = 0; v < kVectors; ++v) {
                    const typename Vec::T w =
                        Vec::mul(Vec::codes(codes + v * Vec::kLanes), scale[g][v]);
                    acc[g][v] = Vec::fmadd(xk, w, acc[g][v]);
                }
            }
        }
    }
    alignas(64) float sums[G][kGroupRows];
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) {
#pragma GCC unroll 2
        for (int v = 0; v < kVectors; ++v) {
            Vec::store(sums[g] + v * Vec::kLanes, acc[g][v]);
        }
    }
    for (int g = 0; g < G; ++g) {
        for (Index i = 0; i < kGroupRows; ++i) {
            const Index o = r + g * kGroupRows + i - job.r0;
            job.y[o] = job.bias ? sums[g][i] + job.bias[o] : sums[g][i];
        }
    }
}

// One row, where a range starts or ends inside a group or after the groups: the same chain,
// one lane, from either layout.
void oneRow(const RowJob& job, Index r) {
    const bool grouped = r / kGroupRows < job.groups;
    const std::uint8_t* base =
        grouped ? job.w + (r / kGroupRows) * kGroupRows * job.rowBytes : job.w + r * job.rowBytes;
    const Index lane = r % kGroupRows;
    float acc = 0.0f;
    for (Index b = 0; b < job.depth / kBlockCodes; ++b) {
        const std::uint8_t* block = base + b * (grouped ? kGroupBlockBytes : kBlockBytes);
        const float d = _cvtsh_ss(halfAt(grouped ? block + 2 * lane : block));
        for (Index k = 0; k < kBlockCodes; ++k) {
            const std::uint8_t code =
                grouped ? block[kGroupScaleBytes + k * kGroupRows + lane] : block[2 + k];
            const float w = static_cast<float>(static_cast<std::int8_t>(code)) * d;
            acc = __builtin_fmaf(job.x[b * kBlockCodes + k], w, acc);
        }
    }
    const Index o = r - job.r0;
    job.y[o] = job.bias ? acc + job.bias[o] : acc;
}

// Whole groups inside [r, r1) from row r, at most `most`.
Index wholeGroups(const RowJob& job, Index r, Index most) {
    if (r % kGroupRows != 0) {
        return 0;
    }
    Index n = 0;
    while (n < most && r / kGroupRows + n < job.groups && r + (n + 1) * kGroupRows <= job.r1) {
        ++n;
    }
    return n;
}

template <class Vec, int G>
void q8_0Rows(const RowJob& job) {
    Index r = job.r0;
    while (r < job.r1) {
        const Index n = wholeGroups(job, r, G);
        if (n == G) {
            rowGroups<Vec, G>(job, r);
        } else if (n > 0) {
            rowGroups<Vec, 1>(job, r);
        } else {
            oneRow(job, r);
            ++r;
            continue;
        }
        r += (n == G ? G : 1) * kGroupRows;
    }
}

}  // namespace

}  // namespace attnscope::ops::detail
