// The one-row product's inner loops (row_product.cpp): y = x · Wᵀ for a single input row x,
// what every step of KV-cached generation runs, over Q8_0 weights. Compiled once per
// instruction set (row_kernel_avx2.cpp, row_kernel_avx512.cpp, each with its own -m flags) and
// chosen once at run time. Internal to attnscope_core.
//
// As weight_kernel.h explains, translation units built with different -m flags include this
// header, so it declares only plain data and out-of-line functions: no inline code, no
// templates, no Eigen.
//
// Why not the weight product: it repacks x into 16-row panels and broadcasts each weight into
// a vector of panel rows, which for one row uses one lane in 8 or 16, after widening every
// block of W to fp32 in a buffer (tests/bench/README.md, "Where a decode step goes"). Here the
// lanes are 16 rows of W instead, which the loader interleaved once (q8_0_groups.h: code k of 16
// rows side by side), so each vector of codes is one load, widened, scaled and multiplied by
// x[k]. Every output is still one fused multiply-add chain over k = 0 … depth−1 from zero, then
// one add of its bias, on the same widened weights (code × scale is exact in fp32): the weight
// product's bits, which a test checks.
#pragma once

#include <cstddef>
#include <cstdint>

namespace attnscope::ops::detail {

// Rows [r0, r1) of a Q8_0 matrix (blocks of an f16 scale and 32 int8 codes, 34 bytes per row
// and block) against x; its first `groups` groups of 16 rows interleaved (q8_0_groups.h), the
// rows after them as stored.
struct RowJob {
    const float* x;           // [depth]
    std::ptrdiff_t depth;     // a multiple of 32
    const std::uint8_t* w;    // the matrix's first byte
    std::ptrdiff_t rowBytes;  // depth / 32 × 34
    std::ptrdiff_t groups;
    std::ptrdiff_t r0;
    std::ptrdiff_t r1;
    float* y;           // [r1 − r0]
    const float* bias;  // [r1 − r0], or null
};

struct RowKernel {
    const char* isa;  // "avx2" or "avx512"
    void (*q8_0)(const RowJob& job);
};

RowKernel avx2RowKernel();    // AVX2 + FMA + F16C: every CPU AttnScope runs on
RowKernel avx512RowKernel();  // AVX-512 F/VL: only where the CPU has it

}  // namespace attnscope::ops::detail
