// The 8-bit product's loops, written once over an instruction set's operations (a struct with
// static members, defined by q8_kernel_avx2.cpp and q8_kernel_avx512.cpp) and instantiated by
// each of those translation units. Everything here has internal linkage (an unnamed namespace)
// and uses no library templates, so nothing compiled with one unit's -m flags can be merged into
// the other's (see q8_kernel.h, weight_kernel.h).
//
// A tile is one panel of activation rows (the vector lanes) × C weight rows. Per block:
//   S[c] = offset_c + Σ_g scale_cg · Σ_{k∈g} (a_k + 128) · w_ck      (exact, int32 lanes)
// where offset_c = −128 · Σ_g scale_cg Σ_{k∈g} w_ck takes the +128 back out (the unsigned ×
// signed byte products of vpdpbusd / vpmaddubsw need one unsigned side); then, per output,
//   acc = fma(fl(dX · dW), (float)S, acc)   and, with minima,   acc = fma(−fl(dX · dminW),
//   (float)M, acc)
// with M = Σ_i (minPair_i · sumPair_i) over the activation's Q8_K sums. The scalar reference
// (q8_dot_scalar.cpp) computes the same integers and the same chain, so every ISA gives its bits.
#pragma once

#if !defined(__AVX2__) || !defined(__FMA__)
#error "q8_kernel_impl.h needs -mavx2 -mfma (see core/src/ops/CMakeLists.txt)"
#endif

#include <cstddef>
#include <cstdint>

#include "kernel_intrinsics.h"
#include "q8_kernel.h"

namespace attnscope::ops::detail {

namespace {

using Index = std::ptrdiff_t;

std::int32_t load32(const void* p) {
    std::int32_t v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

// The first C weight rows from r0 and where their per-block data lie.
template <int C>
struct TileRows {
    const std::int8_t* codes[C];
    Index at[C];  // (r0 + c) · blocks: index of the row's first block
};

// Adds, per block and row, dW·dX·S (and −dminW·dX·M) to out: one block of the chain. The panel
// is V vectors of Isa::kLanes rows.
template <class Isa, int V, int C, bool kMin>
void scaleBlock(const Q8Job& job, const TileRows<C>& rows, Index b, typename Isa::I (&sums)[C][V],
                typename Isa::F (&out)[C][V]) {
    using I = typename Isa::I;
    using F = typename Isa::F;
    constexpr int K = Isa::kLanes;
    constexpr int L = V * K;
    const Q8WeightRows& w = job.w;
    F dx[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
        dx[v] = Isa::loadF(job.act.d + b * L + v * K);
    }
#pragma GCC unroll 16
    for (int c = 0; c < C; ++c) {
        const F dw = Isa::bcastF(w.d + rows.at[c] + b);
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) {
            out[c][v] = Isa::fmadd(Isa::mul(dx[v], dw), Isa::cvt(sums[c][v]), out[c][v]);
        }
    }
    if constexpr (kMin) {
        I m[C][V];
#pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
#pragma GCC unroll 4
            for (int v = 0; v < V; ++v) {
                m[c][v] = Isa::zero();
            }
        }
        const std::int16_t* s = job.act.sums + b * 8 * L * 2;
        for (int i = 0; i < 8; ++i) {
            I pairs[V];
#pragma GCC unroll 4
            for (int v = 0; v < V; ++v) {
                pairs[v] = Isa::load(s + (i * L + v * K) * 2);
            }
#pragma GCC unroll 16
            for (int c = 0; c < C; ++c) {
                const I mins = Isa::bcast(w.minima + (rows.at[c] + b) * 8 + i);
#pragma GCC unroll 4
                for (int v = 0; v < V; ++v) {
                    m[c][v] = Isa::dot16(m[c][v], pairs[v], mins);
                }
            }
        }
#pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
            const F dmin = Isa::bcastF(w.dmin + rows.at[c] + b);
#pragma GCC unroll 4
            for (int v = 0; v < V; ++v) {
                out[c][v] = Isa::fnmadd(Isa::mul(dx[v], dmin), Isa::cvt(m[c][v]), out[c][v]);
            }
        }
    }
}

// The panel (V vectors of rows) × weight rows [r0, r0 + C), over the whole depth; writes y
// (with the bias). GQ: 4-code steps per scale group (8 for groups of 32, 4 for groups of 16).
template <class Isa, int V, int C, int GQ, bool kScaled, bool kMin, bool kSigned>
void tile(const Q8Job& job, Index r0) {
    using I = typename Isa::I;
    using F = typename Isa::F;
    constexpr int L = V * Isa::kLanes;
    const Q8WeightRows& w = job.w;
    const Index blockCodes = Index{job.blockQuads} * 4;
    TileRows<C> rows;
#pragma GCC unroll 16
    for (int c = 0; c < C; ++c) {
        rows.codes[c] = w.codes + (r0 + c) * w.depth;
        rows.at[c] = (r0 + c) * w.blocks;
    }
    F out[C][V];
#pragma GCC unroll 16
    for (int c = 0; c < C; ++c) {
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) {
            out[c][v] = Isa::zeroF();
        }
    }
    const std::uint8_t* act = job.act.codes;
    for (Index b = 0; b < w.blocks; ++b) {
        I sums[C][V];
#pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
            const I offset = Isa::set1(w.offset[rows.at[c] + b]);
#pragma GCC unroll 4
            for (int v = 0; v < V; ++v) {
                sums[c][v] = offset;
            }
        }
        for (int g = 0; g < job.groups; ++g) {
            const std::int8_t* codes[C];
            std::int32_t scale[C];
#pragma GCC unroll 16
            for (int c = 0; c < C; ++c) {
                codes[c] = rows.codes[c] + b * blockCodes + g * GQ * 4;
                scale[c] = kScaled ? w.scales[(rows.at[c] + b) * job.groups + g] : 1;
            }
            Isa::template group<V, C, GQ, kScaled, kSigned>(sums, act, codes, scale);
            act += GQ * L * 4;
        }
        scaleBlock<Isa, V, C, kMin>(job, rows, b, sums, out);
    }
    alignas(64) float result[C][L];
#pragma GCC unroll 16
    for (int c = 0; c < C; ++c) {
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) {
            Isa::storeF(result[c] + v * Isa::kLanes, out[c][v]);
        }
    }
    for (int c = 0; c < C && r0 + c < job.outputs; ++c) {
        const Index o = r0 + c;
        for (Index l = 0; l < job.act.rows; ++l) {
            job.y[l * job.ldy + o] = job.bias ? result[c][l] + job.bias[o] : result[c][l];
        }
    }
}

template <class Isa, int V, int C, int GQ, bool kScaled, bool kMin, bool kSigned>
void tiles(const Q8Job& job) {
    for (Index r0 = 0; r0 < job.w.rows; r0 += C) {
        tile<Isa, V, C, GQ, kScaled, kMin, kSigned>(job, r0);
    }
}

// The loop for the job's format: legacy blocks (one unscaled group of 32), K blocks with groups
// of 32 (Q4_K, Q5_K: with minima) or of 16 (Q6_K, Q3_K; Q2_K with minima). Signed codes only
// where the instruction set needs the sign trick (Isa::kSignTrick).
template <class Isa, int V, int C>
void run(const Q8Job& job) {
    if (job.groups == 1) {
        if constexpr (Isa::kSignTrick) {
            if (job.signedCodes) {
                tiles<Isa, V, C, 8, false, false, true>(job);
                return;
            }
        }
        tiles<Isa, V, C, 8, false, false, false>(job);
    } else if (job.groups == 8) {
        if (job.hasMin) {
            tiles<Isa, V, C, 8, true, true, false>(job);
        } else {
            tiles<Isa, V, C, 8, true, false, false>(job);
        }
    } else if (job.hasMin) {
        tiles<Isa, V, C, 4, true, true, false>(job);
    } else {
        tiles<Isa, V, C, 4, true, false, false>(job);
    }
}

}  // namespace

}  // namespace attnscope::ops::detail
