// Why a hand-written kernel: Eigen's GEMM (and OpenBLAS's) copies the weight matrix into a
// packed panel layout on every call. For the short inputs users type (tens of tokens) that
// copy is as costly as the arithmetic: 30 % of a BERT-base pass at n = 32 was gemm_pack_lhs.
// Libraries that avoid it pre-pack weights once (ONNX Runtime's MLAS, oneDNN), which no
// Debian library offers for Eigen matrices. Here both operands are already contiguous along
// the shared dimension (x rows, W rows), so a dot-product tile needs no packing at all:
// 2 rows of x × 6 rows of W = 12 AVX accumulators, 8 loads per 12 FMAs. (3 × 4 left GCC one
// register short: it folded the loads into the FMAs and ran load-bound, 20 % slower at n = 128.)
#include "weight_product.h"

#include <algorithm>

#include <omp.h>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define ATTNSCOPE_WEIGHT_PRODUCT_AVX2 1
#endif

namespace attnscope::ops::detail {

namespace {

constexpr Eigen::Index kRowTile = 2;     // rows of x per tile
constexpr Eigen::Index kWeightTile = 6;  // rows of W per tile
// Columns of the shared dimension per pass: the x slice (n × 512 floats, 256 KiB at n = 128)
// stays in L2 while every W row streams past it once.
constexpr Eigen::Index kDepthBlock = 512;

struct Operands {
    const float* x;
    Eigen::Index ldx;
    const float* w;
    Eigen::Index ldw;
    float* y;
    Eigen::Index ldy;
};

#ifdef ATTNSCOPE_WEIGHT_PRODUCT_AVX2
float horizontalSum(__m256 v) {
    const __m128 half = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 pairs = _mm_add_ps(half, _mm_movehl_ps(half, half));
    return _mm_cvtss_f32(_mm_add_ss(pairs, _mm_shuffle_ps(pairs, pairs, 1)));
}
#endif

// y[i0 .. i0+R, o0 .. o0+C] (+)= x[i0.., k0..k1] · w[o0.., k0..k1]ᵀ
template <int R, int C>
void tile(const Operands& op, Eigen::Index i0, Eigen::Index o0, Eigen::Index k0, Eigen::Index k1,
          bool accumulate) {
    const float* x = op.x + i0 * op.ldx;
    const float* w = op.w + o0 * op.ldw;
    float sums[R][C] = {};
    Eigen::Index k = k0;
#ifdef ATTNSCOPE_WEIGHT_PRODUCT_AVX2
    __m256 acc[R][C];
    for (int r = 0; r < R; ++r) {
        for (int c = 0; c < C; ++c) {
            acc[r][c] = _mm256_setzero_ps();
        }
    }
    for (; k + 8 <= k1; k += 8) {
        __m256 xv[R];
        for (int r = 0; r < R; ++r) {
            xv[r] = _mm256_loadu_ps(x + r * op.ldx + k);
        }
        for (int c = 0; c < C; ++c) {
            const __m256 wv = _mm256_loadu_ps(w + c * op.ldw + k);
            for (int r = 0; r < R; ++r) {
                acc[r][c] = _mm256_fmadd_ps(xv[r], wv, acc[r][c]);
            }
        }
    }
    for (int r = 0; r < R; ++r) {
        for (int c = 0; c < C; ++c) {
            sums[r][c] = horizontalSum(acc[r][c]);
        }
    }
#endif
    for (; k < k1; ++k) {
        for (int r = 0; r < R; ++r) {
            for (int c = 0; c < C; ++c) {
                sums[r][c] += x[r * op.ldx + k] * w[c * op.ldw + k];
            }
        }
    }
    for (int r = 0; r < R; ++r) {
        float* y = op.y + (i0 + r) * op.ldy + o0;
        for (int c = 0; c < C; ++c) {
            y[c] = accumulate ? y[c] + sums[r][c] : sums[r][c];
        }
    }
}

// All rows of x against rows [o0, o0 + C) of W, over one depth block.
template <int C>
void weightRows(const Operands& op, Eigen::Index n, Eigen::Index o0, Eigen::Index k0,
                Eigen::Index k1, bool accumulate) {
    Eigen::Index i = 0;
    for (; i + kRowTile <= n; i += kRowTile) {
        tile<kRowTile, C>(op, i, o0, k0, k1, accumulate);
    }
    if (n - i == 1) {
        tile<1, C>(op, i, o0, k0, k1, accumulate);
    }
}

}  // namespace

void productNTInPlace(const Eigen::Ref<const Matrix>& x, const Eigen::Ref<const Matrix>& w,
                      Eigen::Ref<Matrix> y) {
    const Operands op{x.data(),        x.outerStride(), w.data(),
                      w.outerStride(), y.data(),        y.outerStride()};
    const Eigen::Index n = x.rows();
    const Eigen::Index depth = x.cols();
    const Eigen::Index outputs = w.rows();
    const Eigen::Index blocks = (outputs + kWeightTile - 1) / kWeightTile;
    if (depth == 0) {
        y.setZero();
        return;
    }
    // Threads split W's rows in whole tiles, so the tiling (and every sum's order) does not
    // depend on the team size.
    const int team = static_cast<int>(std::clamp<Eigen::Index>(omp_get_max_threads(), 1, blocks));
#pragma omp parallel num_threads(team)
    for (Eigen::Index k0 = 0; k0 < depth; k0 += kDepthBlock) {
        const Eigen::Index k1 = std::min(depth, k0 + kDepthBlock);
#pragma omp for schedule(static)
        for (Eigen::Index b = 0; b < blocks; ++b) {
            const Eigen::Index o0 = b * kWeightTile;
            if (o0 + kWeightTile <= outputs) {
                weightRows<kWeightTile>(op, n, o0, k0, k1, k0 > 0);
            } else {
                for (Eigen::Index o = o0; o < outputs; ++o) {
                    weightRows<1>(op, n, o, k0, k1, k0 > 0);
                }
            }
        }
    }
}

Matrix productNT(const Eigen::Ref<const Matrix>& x, const Eigen::Ref<const Matrix>& w) {
    Matrix y(x.rows(), w.rows());
    if (x.rows() <= kInPlaceRows) {
        productNTInPlace(x, w, y);
    } else {
        y.noalias() = x * w.transpose();
    }
    return y;
}

}  // namespace attnscope::ops::detail
