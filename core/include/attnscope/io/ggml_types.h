// The tensor types of ggml (llama.cpp's tensor library) as GGUF files name them: their ids,
// block sizes and bytes per block, and which of them AttnScope can read.
//
// Written by hand from ggml's docs/gguf.md, include/ggml.h and src/ggml-common.h (the block
// structs and their static_asserts): no Debian package reads ggml's formats. The table holds
// every type a current GGUF may carry, including the ones AttnScope refuses (the I-quants,
// ternary and FP4 types), so a file of any of them is still validated and its refusal names
// the type and the tensor.
#pragma once

#include <cstdint>
#include <string_view>

namespace attnscope::io {

// ggml_type ids as stored in a GGUF tensor info (uint32).
enum class GgmlType : std::uint32_t {
    F32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q4_1 = 3,
    Q5_0 = 6,
    Q5_1 = 7,
    Q8_0 = 8,
    Q8_1 = 9,
    Q2_K = 10,
    Q3_K = 11,
    Q4_K = 12,
    Q5_K = 13,
    Q6_K = 14,
    Q8_K = 15,
    IQ2_XXS = 16,
    IQ2_XS = 17,
    IQ3_XXS = 18,
    IQ1_S = 19,
    IQ4_NL = 20,
    IQ3_S = 21,
    IQ2_S = 22,
    IQ4_XS = 23,
    I8 = 24,
    I16 = 25,
    I32 = 26,
    I64 = 27,
    F64 = 28,
    IQ1_M = 29,
    BF16 = 30,
    TQ1_0 = 34,
    TQ2_0 = 35,
    MXFP4 = 39,
    NVFP4 = 40,
    Q1_0 = 41,
    Q2_0 = 42,
};

struct GgmlTypeInfo {
    GgmlType type;
    std::string_view name;        // as llama.cpp prints it: "Q4_K", "F16", "IQ2_XXS"
    std::uint32_t blockElements;  // values per block (1 for plain types)
    std::uint32_t blockBytes;     // bytes per block
    bool readable;                // AttnScope dequantizes it (a weight type it supports)
};

// The entry for a stored type id, or nullptr for an id ggml does not define (including the
// removed ids 4, 5 and 31–33, 36–38).
const GgmlTypeInfo* ggmlTypeInfo(std::uint32_t id);

const GgmlTypeInfo& ggmlTypeInfo(GgmlType type);

std::string_view ggmlTypeName(GgmlType type);

}  // namespace attnscope::io
