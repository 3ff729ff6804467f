#include "attnscope/io/ggml_types.h"

#include <algorithm>
#include <iterator>

namespace attnscope::io {

namespace {

constexpr std::uint32_t kSuperBlock = 256;  // QK_K

// Bytes per block from ggml-common.h's structs (each is checked there by a static_assert).
constexpr GgmlTypeInfo kTypes[] = {
    {GgmlType::F32, "F32", 1, 4, true},
    {GgmlType::F16, "F16", 1, 2, true},
    {GgmlType::BF16, "BF16", 1, 2, true},
    {GgmlType::Q4_0, "Q4_0", 32, 2 + 16, true},
    {GgmlType::Q4_1, "Q4_1", 32, 2 + 2 + 16, true},
    {GgmlType::Q5_0, "Q5_0", 32, 2 + 4 + 16, true},
    {GgmlType::Q5_1, "Q5_1", 32, 2 + 2 + 4 + 16, true},
    {GgmlType::Q8_0, "Q8_0", 32, 2 + 32, true},
    {GgmlType::Q8_1, "Q8_1", 32, 2 + 2 + 32, false},
    {GgmlType::Q2_K, "Q2_K", kSuperBlock, 16 + 64 + 2 + 2, true},
    {GgmlType::Q3_K, "Q3_K", kSuperBlock, 32 + 64 + 12 + 2, true},
    {GgmlType::Q4_K, "Q4_K", kSuperBlock, 2 + 2 + 12 + 128, true},
    {GgmlType::Q5_K, "Q5_K", kSuperBlock, 2 + 2 + 12 + 32 + 128, true},
    {GgmlType::Q6_K, "Q6_K", kSuperBlock, 128 + 64 + 16 + 2, true},
    {GgmlType::Q8_K, "Q8_K", kSuperBlock, 4 + 256 + 32, true},
    {GgmlType::IQ2_XXS, "IQ2_XXS", kSuperBlock, 2 + 64, false},
    {GgmlType::IQ2_XS, "IQ2_XS", kSuperBlock, 2 + 64 + 8, false},
    {GgmlType::IQ3_XXS, "IQ3_XXS", kSuperBlock, 2 + 96, false},
    {GgmlType::IQ1_S, "IQ1_S", kSuperBlock, 2 + 32 + 16, false},
    {GgmlType::IQ4_NL, "IQ4_NL", 32, 2 + 16, false},
    {GgmlType::IQ3_S, "IQ3_S", kSuperBlock, 2 + 104 + 4, false},
    {GgmlType::IQ2_S, "IQ2_S", kSuperBlock, 2 + 64 + 16, false},
    {GgmlType::IQ4_XS, "IQ4_XS", kSuperBlock, 2 + 2 + 4 + 128, false},
    {GgmlType::I8, "I8", 1, 1, false},
    {GgmlType::I16, "I16", 1, 2, false},
    {GgmlType::I32, "I32", 1, 4, false},
    {GgmlType::I64, "I64", 1, 8, false},
    {GgmlType::F64, "F64", 1, 8, false},
    {GgmlType::IQ1_M, "IQ1_M", kSuperBlock, 32 + 16 + 8, false},
    {GgmlType::TQ1_0, "TQ1_0", kSuperBlock, 48 + 4 + 2, false},
    {GgmlType::TQ2_0, "TQ2_0", kSuperBlock, 64 + 2, false},
    {GgmlType::MXFP4, "MXFP4", 32, 1 + 16, false},
    {GgmlType::NVFP4, "NVFP4", 64, 4 + 32, false},
    {GgmlType::Q1_0, "Q1_0", 128, 2 + 16, false},
    {GgmlType::Q2_0, "Q2_0", 64, 2 + 16, false},
};

}  // namespace

const GgmlTypeInfo* ggmlTypeInfo(std::uint32_t id) {
    const auto* it = std::find_if(
        std::begin(kTypes), std::end(kTypes),
        [id](const GgmlTypeInfo& t) { return static_cast<std::uint32_t>(t.type) == id; });
    return it == std::end(kTypes) ? nullptr : it;
}

const GgmlTypeInfo& ggmlTypeInfo(GgmlType type) {
    return *ggmlTypeInfo(static_cast<std::uint32_t>(type));  // every enumerator has an entry
}

std::string_view ggmlTypeName(GgmlType type) {
    return ggmlTypeInfo(type).name;
}

}  // namespace attnscope::io
