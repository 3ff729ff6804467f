// ggml's block formats (issue 32): every readable type dequantized bit for bit as the
// independent numpy reference does (tests/reference/ggml_blocks.py, itself checked against a
// build of ggml), on random blocks and on blocks whose scales are ±0, denormal, the largest
// f16, negative; F16/BF16/F32 values with denormals and infinities.
#include "attnscope/io/ggml_blocks.h"

#include <bit>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "attnscope/base/error.h"
#include "attnscope/io/gguf.h"

namespace attnscope::io {
namespace {

namespace fs = std::filesystem;

const fs::path kCases = fs::path(ATTNSCOPE_FIXTURE_DIR) / "ggml_blocks";

std::vector<float> floatsOf(const GgufTensor& t) {
    std::vector<float> v(static_cast<std::size_t>(t.elements()));
    std::memcpy(v.data(), t.bytes.data(), t.bytes.size());
    return v;
}

TEST(GgmlBlocks, EveryTypeEqualsTheReferenceBitForBit) {
    const GgufFile blocks(kCases / "blocks.gguf");
    const GgufFile expected(kCases / "blocks_expected.gguf");
    std::set<std::string> covered;
    for (const GgufTensor& t : blocks.tensors()) {
        SCOPED_TRACE(t.name);
        const GgufTensor* want = expected.tensor(t.name);
        ASSERT_NE(want, nullptr);
        ASSERT_EQ(want->type, GgmlType::F32);
        std::vector<float> got(static_cast<std::size_t>(t.elements()));
        dequantize(t.type, t.bytes, got);
        const std::vector<float> ref = floatsOf(*want);
        ASSERT_EQ(got.size(), ref.size());
        std::size_t differ = 0;
        for (std::size_t i = 0; i < got.size(); ++i) {
            if (std::bit_cast<std::uint32_t>(got[i]) != std::bit_cast<std::uint32_t>(ref[i])) {
                if (differ++ < 3) {
                    ADD_FAILURE() << "value " << i << ": " << got[i] << " vs " << ref[i];
                }
            }
        }
        EXPECT_EQ(differ, 0u);
        covered.insert(std::string(ggmlTypeName(t.type)));
    }
    EXPECT_EQ(covered,
              (std::set<std::string>{"F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1",
                                     "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K", "Q8_K"}));
}

TEST(GgmlBlocks, RowsAreDecodedIndependently) {
    // A row of a tensor decoded alone equals the same row decoded with the whole tensor: the
    // weight product widens blocks of rows at any boundary.
    const GgufFile blocks(kCases / "blocks.gguf");
    for (const GgufTensor& t : blocks.tensors()) {
        SCOPED_TRACE(t.name);
        const GgmlTypeInfo& info = ggmlTypeInfo(t.type);
        const auto rowBytes =
            static_cast<std::size_t>(t.rowLength()) / info.blockElements * info.blockBytes;
        std::vector<float> all(static_cast<std::size_t>(t.elements()));
        dequantize(t.type, t.bytes, all);
        std::vector<float> last(static_cast<std::size_t>(t.rowLength()));
        dequantize(t.type, t.bytes.last(rowBytes), last);
        EXPECT_EQ(0, std::memcmp(last.data(), all.data() + all.size() - last.size(),
                                 last.size() * sizeof(float)));
    }
}

TEST(GgmlBlocks, RefusesWhatItCannotDecode) {
    std::vector<std::byte> bytes(66);
    std::vector<float> out(256);
    EXPECT_EQ(
        testing::errorMessage<InvalidArgument>([&] { dequantize(GgmlType::IQ2_XXS, bytes, out); }),
        "dequantize: IQ2_XXS: 66 bytes do not hold 256 readable values");
    std::vector<float> partial(100);
    EXPECT_THROW(dequantize(GgmlType::Q4_K, std::span(bytes).first(0), partial), InvalidArgument);
    std::vector<float> two(64);
    EXPECT_THROW(dequantize(GgmlType::Q8_0, std::span(bytes).first(34), two), InvalidArgument);
}

TEST(GgmlBlocks, TheTypeTableMatchesGgml) {
    EXPECT_EQ(ggmlTypeInfo(4), nullptr);  // Q4_2, removed
    EXPECT_EQ(ggmlTypeInfo(31), nullptr);
    EXPECT_EQ(ggmlTypeInfo(43), nullptr);
    EXPECT_EQ(ggmlTypeInfo(12)->name, "Q4_K");
    EXPECT_EQ(ggmlTypeInfo(12)->blockBytes, 144u);
    EXPECT_EQ(ggmlTypeInfo(GgmlType::Q6_K).blockBytes, 210u);
    EXPECT_EQ(ggmlTypeInfo(GgmlType::IQ4_XS).blockBytes, 136u);
    EXPECT_FALSE(ggmlTypeInfo(GgmlType::TQ1_0).readable);
}

}  // namespace
}  // namespace attnscope::io
