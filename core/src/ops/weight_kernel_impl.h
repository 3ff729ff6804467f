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
    float* y;  // the panel's first row, at the tile's first output
    Index ldy;
    Index rows;         // rows of the panel that exist in y
    const float* bias;  // at the tile's first output, or null
    float* part;        // [C][kPanelRows] partial sums between depth slices
    bool resume;        // start from part
    bool finish;        // write y (else part)
};

// V·lanes rows of a panel × C rows of W, over one slice of the depth; the chain over k goes on
// exactly from `part` between slices. The unroll pragmas keep the accumulators in registers:
// without them GCC sometimes left the small loops rolled and kept acc[] in memory, 2.5 × slower.
template <class Vec, int V, int C>
void tile(const float* panel, const float* w, Index ldw, Index depth, const Out& out) {
    constexpr int kLanes = Vec::kLanes;
    static_assert(V * kLanes <= kPanelRows);
    alignas(64) float sums[C][V * kLanes];
    typename Vec::T acc[C][V];
    const float* wr[C];
#pragma GCC unroll 16
    for (int c = 0; c < C; ++c) {
        wr[c] = w + c * ldw;
#pragma GCC unroll 16
        for (int v = 0; v < V; ++v) {
            acc[c][v] =
                out.resume ? Vec::load(out.part + c * kPanelRows + v * kLanes) : Vec::zero();
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
        const float* xk = panel + k * kPanelRows;
        typename Vec::T xv[V];
#pragma GCC unroll 16
        for (int v = 0; v < V; ++v) {
            xv[v] = Vec::load(xk + v * kLanes);
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
            Vec::store(out.finish ? sums[c] + v * kLanes : out.part + c * kPanelRows + v * kLanes,
                       acc[c][v]);
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
void tileUpTo(int c, const float* panel, const float* w, Index ldw, Index depth, const Out& out) {
    if constexpr (C > 1) {
        if (c < C) {
            tileUpTo<Vec, V, C - 1>(c, panel, w, ldw, depth, out);
            return;
        }
    }
    tile<Vec, V, C>(panel, w, ldw, depth, out);
}

// One panel against the job's rows of W, C at a time, over columns [k0, k0 + depth).
template <class Vec, int V, int C>
void sweep(const float* panel, const BlockJob& job, Index k0, Index depth, const Out& out) {
    for (Index o = job.o0; o < job.o1; o += C) {
        const int c = static_cast<int>(smaller(C, job.o1 - o));
        tileUpTo<Vec, V, C>(
            c, panel, job.w + o * job.ldw + k0, job.ldw, depth,
            Out{out.y + o, out.ldy, out.rows, out.bias ? out.bias + o : nullptr,
                out.part ? out.part + (o - job.o0) * kPanelRows : nullptr, out.resume, out.finish});
    }
}

// Full panels take Wide (WideV vectors × WideC rows of W); a panel of at most Narrow::kLanes
// rows (a short input, or the last panel) takes one Narrow vector × NarrowC rows of W: a
// 20-token sentence ran 17 % faster than with a padded 16-row panel.
template <class Wide, int WideV, int WideC, class Narrow, int NarrowC>
void outputBlock(const BlockJob& job) {
    static_assert(WideV * Wide::kLanes == kPanelRows);
    const Index width = job.o1 - job.o0;
    const Index panels = (job.rows + kPanelRows - 1) / kPanelRows;
    Index k0 = 0;
    do {
        const Index depth = smaller(job.slice, job.depth - k0);
        for (Index p = 0; p < panels; ++p) {
            const Out out{job.y + p * kPanelRows * job.ldy,
                          job.ldy,
                          smaller(kPanelRows, job.rows - p * kPanelRows),
                          job.bias,
                          job.part ? job.part + p * width * kPanelRows : nullptr,
                          k0 > 0,
                          k0 + depth >= job.depth};
            const float* panel = job.panels + p * kPanelRows * job.depth + k0 * kPanelRows;
            if (out.rows > Narrow::kLanes) {
                sweep<Wide, WideV, WideC>(panel, job, k0, depth, out);
            } else {
                sweep<Narrow, 1, NarrowC>(panel, job, k0, depth, out);
            }
        }
        k0 += job.slice;
    } while (k0 < job.depth);
}

}  // namespace

}  // namespace attnscope::ops::detail
