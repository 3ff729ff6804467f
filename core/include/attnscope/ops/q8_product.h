// The optional 8-bit-activation product of a quantized weight matrix (issue 32): what llama.cpp
// computes on a CPU. Each row of x is quantized to 8 bits in blocks, exactly as llama.cpp
// quantizes it for the weight type's vec_dot_type (Q8_0 for Q4_0, Q5_0 and Q8_0 weights; Q8_K
// for Q2_K…Q6_K), and every output is ggml's vec_dot of a weight row with that quantized row:
// integer products summed exactly per block, each block's sum scaled as ggml scales it.
//
// It is NOT the exact product (storedProduct: dequantized weights × fp32 activations): the
// activations lose their low bits, a deviation to be measured and stated wherever this is used
// (tests/core/ops/q8_product_test.cpp reports it on realistic data: 0.6-1.1 % of ‖y‖ for Q8_0
// activations, 0.9-2.8 % for Q8_K's). 2-3.5 times as fast with AVX-512 VNNI, 1.3-2 with AVX2
// (tests/bench/q8_product_bench).
//
// Bits. Every output (r, c) is one fp32 chain from 0 over the blocks b of the row, in order:
//     acc = fma(fl(dW_b · dX_b), (float)S_b, acc)         S_b: the block's exact integer sum
//     acc = fma(−fl(dminW_b · dX_b), (float)M_b, acc)     types with a minimum (Q2_K, Q4_K, Q5_K)
// then one add of its bias. The same bits on every instruction set (scalar, AVX2, AVX-512 VNNI)
// and for any thread count, n, or split of W's rows. ggml sums the same terms in another order
// (8 partial sums, a separate chain for the minima), so llama.cpp's outputs differ from these in
// the last bits, never by more than the fp32 rounding of those sums.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "attnscope/base/tensor.h"
#include "attnscope/io/ggml_types.h"
#include "attnscope/ops/weight_types.h"

namespace attnscope::ops {

// The block type the activations of a product with `weights` are quantized to (GgmlType::Q8_0 or
// GgmlType::Q8_K), or nullopt where the 8-bit product does not take that weight type: Q4_1 and
// Q5_1 (llama.cpp's Q8_1), the float types and the I-quants. Callers use storedProduct then.
std::optional<io::GgmlType> q8ActivationType(io::GgmlType weights);

// "Q4_1 weights are not supported in 8-bit mode", or empty where they are.
std::string q8Unsupported(io::GgmlType weights);

// One row of activations quantized to `activationType` (Q8_0 or Q8_K) in ggml's block layout
// (block_q8_0: f16 d, 32 int8; block_q8_K: f32 d, 256 int8, 16 int16 sums), as llama.cpp does:
//   Q8_0: its x86 quantize_row_q8_0 (what every AVX build runs): d = amax/127, id = 127/amax,
//         codes = x·id rounded to nearest, ties to even (NOT quantize_row_q8_0_ref's roundf,
//         which rounds ties away from zero and multiplies by 1/d), d stored as f16.
//   Q8_K: quantize_row_q8_K_ref: the first value of largest magnitude m sets iscale = −127/m,
//         codes = nearest_int(iscale·x) capped at 127, d = 1/iscale (f32); an all-zero block
//         gets d = 0, zero codes and zero sums (ggml leaves its sums unwritten).
// x.size() is whole blocks (32 or 256) and out.size() their bytes; else InvalidArgument.
void quantizeActivationRow(io::GgmlType activationType, std::span<const float> x,
                           std::span<std::byte> out);

// x·Wᵀ (+ bias[0 … count), when given) for x [n, in] and W = rows [first, first + count) of a
// quantized weight matrix, with 8-bit activations -> [n, count], on the compute threads (they
// split W's rows). Throws InvalidArgument for a weight type q8ActivationType refuses.
Matrix q8Product(const Matrix& x, const BlockMatrix& w, Eigen::Index first, Eigen::Index count,
                 const float* bias = nullptr);

// The instruction set q8Product runs: "avx512vnni" or "avx2" (ATTNSCOPE_ISA=avx2 asks for the
// second; both give the same bits).
const char* q8ProductIsa();

}  // namespace attnscope::ops
