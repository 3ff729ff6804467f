// Why a hand-written kernel: Eigen's GEMM (and OpenBLAS's) copies the weight matrix into a
// packed panel layout on every call. For the short inputs users type (tens of tokens) that
// copy is as costly as the arithmetic: 30 % of a BERT-base pass at n = 32 was gemm_pack_lhs.
// Libraries that avoid it pre-pack weights once (ONNX Runtime's MLAS, oneDNN); Debian packages
// oneDNN 2.6 (libdnnl), but it would bring a second compute library, with its own threads and
// weight layouts, for this one product; not tried.
//
// Here the cheap operand is repacked instead: x (n × in, small beside W for every n a user
// types) goes into 16-row panels, column by column, and W is read where it lies. The kernel is
// the usual broadcast tile with the roles turned: 16 rows of x (two AVX vectors) × 6 rows of W
// (six broadcast scalars, each row contiguous in k) = 12 accumulators, 8 loads per 12 FMAs,
// no horizontal sums; blocks of 48 rows of W stay in L2 while every panel of x goes past.
#include "weight_product.h"

#include <algorithm>

#include <omp.h>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define ATTNSCOPE_WEIGHT_PRODUCT_AVX2 1
#endif

namespace attnscope::ops::detail {

namespace {

constexpr int kLanes = 8;
constexpr Eigen::Index kPanelRows = PackedRows::kPanelRows;
constexpr Eigen::Index kOutputBlock = 48;  // rows of W per block: a multiple of 6
constexpr Eigen::Index kPrefetch = 128;    // floats ahead along a row of W

struct Out {
    float* y;  // the panel's first row, at the tile's first output
    Eigen::Index ldy;
    Eigen::Index rows;  // rows of the panel that exist in y
    const float* bias;  // at the tile's first output, or null
    float* part;        // [C][kPanelRows] partial sums between depth blocks
    bool resume;        // start from part
    bool finish;        // write y (else part)
};

// Long inputs multiply a block of W in slices of this many columns, so a panel's slice
// (16 × 256 floats, 16 KiB) stays in L1 while the block's rows go past it (≈ 8 % faster at
// n = 512). Short inputs take the whole depth at once: their W streams from memory, and
// slicing it cost them ≈ 10 %.
constexpr Eigen::Index kDepthBlock = 256;
constexpr Eigen::Index kSlicedPanels = 8;  // more panels than this: sliced

// 8·V rows of a panel × C rows of W, over one slice of the depth; the chain over k goes on
// exactly from `part` between slices. The unroll pragmas keep the accumulators in registers:
// without them GCC sometimes left the small loops rolled and kept acc[] in memory, 2.5 × slower.
template <int V, int C>
void tile(const float* panel, const float* w, Eigen::Index ldw, Eigen::Index depth, Out out) {
    alignas(32) float sums[C][V * kLanes];
#ifdef ATTNSCOPE_WEIGHT_PRODUCT_AVX2
    __m256 acc[C][V];
    const float* wr[C];
#pragma GCC unroll 16
    for (int c = 0; c < C; ++c) {
        wr[c] = w + c * ldw;
#pragma GCC unroll 16
        for (int v = 0; v < V; ++v) {
            acc[c][v] = out.resume ? _mm256_load_ps(out.part + c * kPanelRows + v * kLanes)
                                   : _mm256_setzero_ps();
        }
    }
    // A cache line of each W row ahead every 16 steps: W streams from memory for short inputs,
    // and the hardware prefetchers do not follow 6–8 rows at once (n = 32 ran 35 % slower).
    // (Unrolling this loop, by hand or by pragma, measured slower.)
    for (Eigen::Index k = 0; k < depth; ++k) {
        if ((k & 15) == 0) {
#pragma GCC unroll 16
            for (int c = 0; c < C; ++c) {
                _mm_prefetch(reinterpret_cast<const char*>(wr[c] + k + kPrefetch), _MM_HINT_T0);
            }
        }
        const float* xk = panel + k * kPanelRows;
        __m256 xv[V];
#pragma GCC unroll 16
        for (int v = 0; v < V; ++v) {
            xv[v] = _mm256_load_ps(xk + v * kLanes);
        }
#pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
            const __m256 wv = _mm256_broadcast_ss(wr[c] + k);
#pragma GCC unroll 16
            for (int v = 0; v < V; ++v) {
                acc[c][v] = _mm256_fmadd_ps(xv[v], wv, acc[c][v]);
            }
        }
    }
    if (!out.finish) {
#pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
#pragma GCC unroll 16
            for (int v = 0; v < V; ++v) {
                _mm256_store_ps(out.part + c * kPanelRows + v * kLanes, acc[c][v]);
            }
        }
        return;
    }
#pragma GCC unroll 16
    for (int c = 0; c < C; ++c) {
#pragma GCC unroll 16
        for (int v = 0; v < V; ++v) {
            _mm256_store_ps(sums[c] + v * kLanes, acc[c][v]);
        }
    }
#else
    for (int c = 0; c < C; ++c) {
        for (int i = 0; i < V * kLanes; ++i) {
            float s = out.resume ? out.part[c * kPanelRows + i] : 0.0f;
            for (Eigen::Index k = 0; k < depth; ++k) {
                s += panel[k * kPanelRows + i] * w[c * ldw + k];
            }
            (out.finish ? sums[c][i] : out.part[c * kPanelRows + i]) = s;
        }
    }
    if (!out.finish) {
        return;
    }
#endif
    // The bias here rather than after the product: in parallel, and while y is in cache.
    for (Eigen::Index r = 0; r < out.rows; ++r) {
        for (int c = 0; c < C; ++c) {
            out.y[r * out.ldy + c] = out.bias ? sums[c][r] + out.bias[c] : sums[c][r];
        }
    }
}

// tile<V, c> for a run-time c in 1 … C (the last rows of W).
template <int V, int C>
void tileUpTo(int c, const float* panel, const float* w, Eigen::Index ldw, Eigen::Index depth,
              Out out) {
    if constexpr (C > 1) {
        if (c < C) {
            tileUpTo<V, C - 1>(c, panel, w, ldw, depth, out);
            return;
        }
    }
    tile<V, C>(panel, w, ldw, depth, out);
}

// One panel against rows [o0, o1) of W, 6 at a time. A last panel of at most 8 rows uses one
// vector (a 20-token sentence ran 17 % faster than with a padded 16-row panel; 8 rows of W
// per tile instead of 6 measured slower).
template <int V>
void sweep(const float* panel, const Eigen::Ref<const Matrix>& w, Eigen::Index o0, Eigen::Index o1,
           Eigen::Index k0, Eigen::Index depth, Out out) {
    constexpr int kTile = 6;
    for (Eigen::Index o = o0; o < o1; o += kTile) {
        const int c = static_cast<int>(std::min<Eigen::Index>(kTile, o1 - o));
        tileUpTo<V, kTile>(
            c, panel, w.data() + o * w.outerStride() + k0, w.outerStride(), depth,
            Out{out.y + o, out.ldy, out.rows, out.bias ? out.bias + o : nullptr,
                out.part ? out.part + (o - o0) * kPanelRows : nullptr, out.resume, out.finish});
    }
}

// Rows [o0, o1) of W against every panel of x.
void outputBlock(const PackedRows& x, const Eigen::Ref<const Matrix>& w, Eigen::Index o0,
                 Eigen::Index o1, Eigen::Ref<Matrix> y, const float* bias) {
    const Eigen::Index width = o1 - o0;
    const bool sliced = x.panels() > kSlicedPanels && x.depth() > kDepthBlock;
    const Eigen::Index slice = sliced ? kDepthBlock : std::max<Eigen::Index>(1, x.depth());
    Eigen::VectorXf part(sliced ? x.panels() * width * kPanelRows : 0);
    Eigen::Index k0 = 0;
    do {
        const Eigen::Index depth = std::min(slice, x.depth() - k0);
        for (Eigen::Index p = 0; p < x.panels(); ++p) {
            const Out out{y.data() + p * kPanelRows * y.outerStride(),
                          y.outerStride(),
                          std::min(kPanelRows, x.rows() - p * kPanelRows),
                          bias,
                          sliced ? part.data() + p * width * kPanelRows : nullptr,
                          k0 > 0,
                          k0 + depth >= x.depth()};
            // A panel of at most 8 rows (a short input, or the last panel) takes one vector.
            if (out.rows > kLanes) {
                sweep<2>(x.panel(p) + k0 * kPanelRows, w, o0, o1, k0, depth, out);
            } else {
                sweep<1>(x.panel(p) + k0 * kPanelRows, w, o0, o1, k0, depth, out);
            }
        }
        k0 += slice;
    } while (k0 < x.depth());
}

Eigen::Index outputBlocks(const Eigen::Ref<const Matrix>& w) {
    return (w.rows() + kOutputBlock - 1) / kOutputBlock;
}

}  // namespace

PackedRows::PackedRows(Eigen::Index rows, Eigen::Index depth)
    : rows_(rows), depth_(depth), data_(panels() * kPanelRows * depth_) {}

PackedRows::PackedRows(const Eigen::Ref<const Matrix>& x) : PackedRows(x.rows(), x.cols()) {
    for (Eigen::Index p = 0; p < panels(); ++p) {
        pack(x, p);
    }
}

void PackedRows::pack(const Eigen::Ref<const Matrix>& x, Eigen::Index panel) {
    // Column by column, so the writes are contiguous (row by row was 2.5 % of a pass).
    const Eigen::Index first = panel * kPanelRows;
    const Eigen::Index count = std::min(kPanelRows, rows_ - first);
    float* dst = data_.data() + first * depth_;
    for (Eigen::Index k = 0; k < depth_; ++k, dst += kPanelRows) {
        for (Eigen::Index r = 0; r < count; ++r) {
            dst[r] = x(first + r, k);
        }
        for (Eigen::Index r = count; r < kPanelRows; ++r) {
            dst[r] = 0.0f;
        }
    }
}

void productNTSerial(const PackedRows& x, const Eigen::Ref<const Matrix>& w, Eigen::Ref<Matrix> y,
                     const float* bias) {
    eigen_assert(w.cols() == x.depth() && y.rows() == x.rows() && y.cols() == w.rows());
    for (Eigen::Index b = 0; b < outputBlocks(w); ++b) {
        const Eigen::Index o0 = b * kOutputBlock;
        outputBlock(x, w, o0, std::min(w.rows(), o0 + kOutputBlock), y, bias);
    }
}

Matrix productNT(const Eigen::Ref<const Matrix>& x, const Eigen::Ref<const Matrix>& w,
                 const float* bias) {
    eigen_assert(w.cols() == x.cols());
    Matrix y(x.rows(), w.rows());
    PackedRows packed(x.rows(), x.cols());
    const Eigen::Index blocks = outputBlocks(w);
    const int team = static_cast<int>(
        std::clamp<Eigen::Index>(omp_get_max_threads(), 1, std::max<Eigen::Index>(1, blocks)));
#pragma omp parallel num_threads(team)
    {
#pragma omp for schedule(static)
        for (Eigen::Index p = 0; p < packed.panels(); ++p) {
            packed.pack(x, p);
        }
#pragma omp for schedule(static)
        for (Eigen::Index b = 0; b < blocks; ++b) {
            const Eigen::Index o0 = b * kOutputBlock;
            outputBlock(packed, w, o0, std::min(w.rows(), o0 + kOutputBlock), y, bias);
        }
    }
    return y;
}

}  // namespace attnscope::ops::detail
