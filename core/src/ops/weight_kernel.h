// The inner loops of the weight product (weight_product.cpp), compiled once per instruction set
// (weight_kernel_avx2.cpp, weight_kernel_avx512.cpp, each with its own -m flags) and chosen once
// at run time from what the CPU has. Internal to attnscope_core.
//
// Translation units built with different -m flags include this header, so it declares only
// plain data and functions defined out of line: no inline code, no templates, no Eigen. An
// inline function compiled in both would be merged by the linker into one copy, possibly the
// AVX-512 one, which would then run on (and kill with SIGILL) a CPU without AVX-512.
#pragma once

#include <cstddef>

namespace attnscope::ops::detail {

// x is repacked into panels of this many rows, each stored column by column.
inline constexpr std::ptrdiff_t kPanelRows = 16;

// One block of outputs: rows [o0, o1) of W against every panel of x.
struct BlockJob {
    const float* panels;  // x packed: panels × [depth][kPanelRows], the last zero-padded
    std::ptrdiff_t rows;  // x's rows (queries or tokens)
    std::ptrdiff_t depth;
    const float* w;  // [out, depth], row-major, rows ldw floats apart
    std::ptrdiff_t ldw;
    std::ptrdiff_t o0;
    std::ptrdiff_t o1;
    float* y;  // [rows, out], rows ldy floats apart
    std::ptrdiff_t ldy;
    const float* bias;     // [out], or null
    std::ptrdiff_t slice;  // columns of x per pass over the block (≥ depth: one pass)
    float* part;  // [panels][o1 − o0][kPanelRows] partial sums between passes; null for one pass
};

// Every output element is one fused multiply-add chain over k = 0 … depth−1 from zero, then one
// add of its bias, whatever the instruction set: the kernels give identical bits.
struct WeightKernel {
    const char* isa;  // "avx2" or "avx512"
    void (*outputBlock)(const BlockJob& job);
};

WeightKernel avx2WeightKernel();    // AVX2 + FMA: every CPU AttnScope runs on
WeightKernel avx512WeightKernel();  // AVX-512 F/VL: only where the CPU has it

}  // namespace attnscope::ops::detail
