// The weight product's loops, written once over a vector type and instantiated by each
// instruction set's translation unit (weight_kernel_avx2.cpp, weight_kernel_avx512.cpp).
// Everything here has internal linkage (an unnamed namespace) and uses no library templates,
// so nothing compiled with one unit's -m flags can be merged into the other's (see
// weight_kernel.h).
//
// The kernel is the usual broadcast tile with the roles turned: x (n × in, small beside W for
// every n a user types) was repacked into 16-row panels, column by column, and W is read where
// it lies. V vectors of panel rows × C rows of W (C broadcast scalars, each row contiguous in k)
// = V·C accumulators, no horizontal sums; the caller's blocks of 48 rows of W stay in L2 while
// every panel of x goes past.
#pragma once

#if !defined(__AVX2__) || !defined(__FMA__)
#error "weight_kernel_impl.h needs -mavx2 -mfma (see core/src/ops/CMakeLists.txt)"
#endif

#include <cstddef>

#include <immintrin.h>

#include "weight_kernel.h"

namespace attnscope::ops::detail {

namespace {

using Index = std::ptrdiff_t;

constexpr Index kPrefetch = 128;  // floats ahead along a row of W

// 8 panel rows in one AVX register (16-row panels use two; short inputs and last panels one).
struct Ymm {
    using T = __m256;
    static constexpr int kLanes = 8;

    static T zero() { return _mm256_setzero_ps(); }

    static T load(const float* p) { return _mm256_loadu_ps(p); }

    static void store(float* p, T v) { _mm256_storeu_ps(p, v); }

    static T broadcast(const float* p) { return _mm256_broadcast_ss(p); }

    static T fmadd(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
};

Index smaller(Index a, Index b) {
    return a < b ? a : b;
}

struct Out {
    float* y;  // the group's first row, at the tile's first output
    Index ldy;
    Index rows;         // rows of the group that exist in y
    const float* bias;  // at the tile's first output, or null
    float* part;        // the group's first panel's partial sums, at the tile's first output
    Index partPanel;    // floats from one panel's partial sums to the next's ([width][kPanelRows])
    bool resume;        // start from part
    bool finish;        // write y (else part)
};

// Where vector v of a group starts: its panel, and its rows within the panel.
constexpr Index panelOf(int v, int lanes) {
    return v * lanes / kPanelRows;
}

constexpr Index laneOffset(int v, int lanes) {
    return v * lanes % kPanelRows;
}

// A group of V·lanes rows of x (one or more consecutive panels, `panelStride` floats apart) × C
// rows of W, over one slice of the depth; the chain over k goes on exactly from `part` between
// slices. The unroll pragmas keep the accumulators in registers: without them GCC sometimes left
// the small loops rolled and kept acc[] in memory, 2.5 × slower.
template <class Vec, int V, int C>
void tile(const float* x, Index panelStride, const float* w, Index ldw, Index depth,
          const Out& out) {
    constexpr int kLanes = Vec::kLanes;
    alignas(64) float sums[C][V * kLanes];
    typename Vec::T acc[C][V];
    const float* wr[C];
    const float* xr[V];
    float* pr[V];
#pragma GCC unroll 16
    for (int v = 0; v < V; ++v) {
        xr[v] = x + panelOf(v, kLanes) * panelStride + laneOffset(v, kLanes);
        pr[v] = out.part + panelOf(v, kLanes) * out.partPanel + laneOffset(v, kLanes);
    }
#pragma GCC unroll 16
    for (int c = 0; c < C; ++c) {
        wr[c] = w + c * ldw;
#pragma GCC unroll 16
        for (int v = 0; v < V; ++v) {
            acc[c][v] = out.resume ? Vec::load(pr[v] + c * kPanelRows) : Vec::zero();
        }
    }
    // A cache line of each W row ahead every 16 steps: W streams from memory for short inputs,
    // and the hardware prefetchers do not follow 6–8 rows at once (n = 32 ran 35 % slower).
    // (Unrolling this loop, by hand or by pragma, measured slower.)
    for (Index k = 0; k < depth; ++k) {
        if ((k & 15) == 0) {
#pragma GCC unroll 16
            for (int c = 0; c < C; ++c) {
                _mm_prefetch(reinterpret_cast<const char*>(wr[c] + k + kPrefetch), _MM_HINT_T0);
            }
        }
        typename Vec::T xv[V];
#pragma GCC unroll 16
        for (int v = 0; v < V; ++v) {
            xv[v] = Vec::load(xr[v] + k * kPanelRows);
        }
#pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
            const typename Vec::T wv = Vec::broadcast(wr[c] + k);
#pragma GCC unroll 16
            for (int v = 0; v < V; ++v) {
                acc[c][v] = Vec::fmadd(xv[v], wv, acc[c][v]);
            }
        }
    }
#pragma GCC unroll 16
    for (int c = 0; c < C; ++c) {
#pragma GCC unroll 16
        for (int v = 0; v < V; ++v) {
            Vec::store(out.finish ? sums[c] + v * kLanes : pr[v] + c * kPanelRows, acc[c][v]);
        }
    }
    if (!out.finish) {
        return;
    }
    // The bias here rather than after the product: in parallel, and while y is in cache.
    for (Index r = 0; r < out.rows; ++r) {
        for (int c = 0; c < C; ++c) {
            out.y[r * out.ldy + c] = out.bias ? sums[c][r] + out.bias[c] : sums[c][r];
        }
    }
}

// tile<Vec, V, c> for a run-time c in 1 … C (the last rows of W).
template <class Vec, int V, int C>
void tileUpTo(int c, const float* x, Index panelStride, const float* w, Index ldw, Index depth,
              const Out& out) {
    if constexpr (C > 1) {
        if (c < C) {
            tileUpTo<Vec, V, C - 1>(c, x, panelStride, w, ldw, depth, out);
            return;
        }
    }
    tile<Vec, V, C>(x, panelStride, w, ldw, depth, out);
}

// One group of panels against the job's rows of W, C at a time, over columns [k0, k0 + depth).
// W is read where it lies. (Copying each slice to rows an odd number of cache lines apart,
// against L1 set conflicts of a deep W whose rows lie 12 KiB apart, measured no faster.)
template <class Vec, int V, int C>
void sweep(const float* x, const BlockJob& job, Index k0, Index depth, const Out& out) {
    const Index panelStride = kPanelRows * job.depth;
    for (Index o = job.o0; o < job.o1; o += C) {
        const int c = static_cast<int>(smaller(C, job.o1 - o));
        tileUpTo<Vec, V, C>(c, x, panelStride, job.w + o * job.ldw + k0, job.ldw, depth,
                            Out{out.y + o, out.ldy, out.rows, out.bias ? out.bias + o : nullptr,
                                out.part ? out.part + (o - job.o0) * kPanelRows : nullptr,
                                out.partPanel, out.resume, out.finish});
    }
}

// The tile shapes of one instruction set: groups of GroupV × Group::kLanes rows (one or more
// whole panels) while that many rows are left, then single panels of PanelV × Panel::kLanes =
// kPanelRows rows, and a last panel of at most Narrow::kLanes rows (a short input) in one Narrow
// vector: a 20-token sentence ran 17 % faster than with a padded 16-row panel.
template <class Group, int GroupV, int GroupC, class Panel, int PanelV, int PanelC, class Narrow,
          int NarrowC>
void outputBlock(const BlockJob& job) {
    constexpr Index kGroupRows = GroupV * Group::kLanes;
    static_assert(kGroupRows % kPanelRows == 0);
    static_assert(PanelV * Panel::kLanes == kPanelRows);
    const Index width = job.o1 - job.o0;
    Index k0 = 0;
    do {
        const Index depth = smaller(job.slice, job.depth - k0);
        Index first = 0;  // the group's first row
        while (first < job.rows) {
            const Index p = first / kPanelRows;
            const Index left = job.rows - first;
            const Out out{job.y + first * job.ldy,
                          job.ldy,
                          smaller(left, kGroupRows),
                          job.bias,
                          job.part ? job.part + p * width * kPanelRows : nullptr,
                          width * kPanelRows,
                          k0 > 0,
                          k0 + depth >= job.depth};
            const float* x = job.panels + p * kPanelRows * job.depth + k0 * kPanelRows;
            if (left > kGroupRows - kPanelRows && kGroupRows > kPanelRows) {
                sweep<Group, GroupV, GroupC>(x, job, k0, depth, out);
                first += kGroupRows;
            } else if (left > Narrow::kLanes) {
                sweep<Panel, PanelV, PanelC>(
                    x, job, k0, depth,
                    Out{out.y, out.ldy, smaller(left, kPanelRows), out.bias, out.part,
                        out.partPanel, out.resume, out.finish});
                first += kPanelRows;
            } else {
                sweep<Narrow, 1, NarrowC>(x, job, k0, depth, out);
                first += kPanelRows;
            }
        }
        k0 += job.slice;
    } while (k0 < job.depth);
}

}  // namespace

}  // namespace attnscope::ops::detail
