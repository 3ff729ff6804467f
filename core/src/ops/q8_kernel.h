// The integer inner loops of the 8-bit product (q8_product.cpp), compiled once per instruction
// set (q8_kernel_avx2.cpp, q8_kernel_avx512.cpp, each with its own -m flags) and chosen once at
// run time. Internal to attnscope_core.
//
// As weight_kernel.h explains, translation units built with different -m flags include this
// header, so it declares only plain data and out-of-line functions: no inline code, no
// templates, no Eigen.
//
// Roles: a panel of `lanes` activation rows (16 for AVX-512, 8 for AVX2) fills a vector, four
// codes per row and lane, so one vector instruction multiplies four codes of every panel row by
// four codes of one weight row, broadcast; `tileRows` weight rows go together. The weights need
// no interleaving (each row's codes stay contiguous), so decoding a block of W is cheap.
#pragma once

#include <cstddef>
#include <cstdint>

namespace attnscope::ops::detail {

// One panel of activation rows, quantized and interleaved by q8_panels.cpp.
struct Q8ActPanel {
    // [depth / 4][lanes][4]: code + 128 (as unsigned bytes), or the signed code where the job
    // is signedCodes.
    const std::uint8_t* codes;
    const float* d;            // [blocks][lanes]: the activation block scales
    const std::int16_t* sums;  // Q8_K: [blocks][8][lanes][2], the 16 sums of 16 codes; else null
    std::ptrdiff_t rows;       // panel rows that exist (≤ lanes); the others are zero
};

// Weight rows decoded by q8_panels.cpp, a multiple of the kernel's tileRows.
struct Q8WeightRows {
    const std::int8_t* codes;  // [rows][depth]
    std::ptrdiff_t depth;
    const float* d;              // [rows][blocks]
    const float* dmin;           // [rows][blocks]; null without minima
    const std::int32_t* offset;  // [rows][blocks]: −128 · Σ_g scale_g Σ_{k∈g} code_k (0 if signed)
    const std::int32_t* scales;  // [rows][blocks][groups]; AVX2: the int16 scale twice
    const std::int32_t* minima;  // [rows][blocks][8]: int16 pairs (min of sum 2i, of sum 2i + 1)
    std::ptrdiff_t blocks;       // per row
    std::ptrdiff_t rows;         // decoded (a multiple of tileRows)
};

// The panel against every decoded row; writes y for the panel's rows and the first
// `outputs` weight rows.
struct Q8Job {
    Q8ActPanel act;
    Q8WeightRows w;
    int blockQuads;    // 4-code steps per block: 8 or 64
    int groups;        // scale groups per block: 1 (unscaled), 8 or 16
    bool hasMin;       // subtract dmin · Σ min · sums
    bool signedCodes;  // AVX2 with 8-bit weight codes: sign trick, no +128 offset
    std::ptrdiff_t outputs;
    float* y;  // [panel rows][outputs], rows ldy floats apart
    std::ptrdiff_t ldy;
    const float* bias;  // [outputs], or null
};

struct Q8Kernel {
    const char* isa;        // "avx2" or "avx512vnni"
    int lanes;              // activation rows per panel
    int tileRows;           // weight rows per tile; decoded rows come in multiples of it
    bool pairedScales;      // scales as int16 pairs (AVX2's vpmaddwd) rather than int32
    int maxUnsignedWeight;  // largest |code| taken with the +128 offset; larger: signedCodes
    void (*run)(const Q8Job& job);
};

Q8Kernel avx2Q8Kernel();    // AVX2: every CPU AttnScope runs on
Q8Kernel avx512Q8Kernel();  // AVX-512 F/BW/VL + VNNI: only where the CPU has them

}  // namespace attnscope::ops::detail
