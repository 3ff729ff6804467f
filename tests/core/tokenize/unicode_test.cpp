#include "attnscope/tokenize/unicode.h"

#include <gtest/gtest.h>

#include "attnscope/base/error.h"

namespace attnscope::tokenize {
namespace {

TEST(Unicode, DecodesWithByteOffsets) {
    const DecodedText t = decodeUtf8("aé🤗", "test");
    EXPECT_EQ(t.chars, (std::u32string{U'a', 0xE9, 0x1F917}));
    EXPECT_EQ(t.byteOffsets, (std::vector<std::size_t>{0, 1, 3, 7}));
}

TEST(Unicode, InvalidUtf8NamesTheByteOffset) {
    for (const auto& [bytes, offset] :
         std::vector<std::pair<std::string, std::size_t>>{
             {"ab\xff", 2},             // invalid lead byte
             {"a\x80", 1},              // lone continuation byte
             {"ab\xc3", 2},             // truncated
             {"\xc0\xaf", 0},           // overlong '/'
             {"x\xed\xa0\x80", 1},      // UTF-16 surrogate
             {"\xf4\x90\x80\x80", 0}})  // beyond U+10FFFF
    {
        EXPECT_EQ(findInvalidUtf8(bytes), offset);
        try {
            decodeUtf8(bytes, "input");
            ADD_FAILURE() << "no error for offset " << offset;
        } catch (const InvalidArgument& e) {
            EXPECT_NE(std::string(e.what()).find("input: byte " + std::to_string(offset)),
                      std::string::npos)
                << e.what();
        }
    }
    EXPECT_EQ(findInvalidUtf8(std::string("a\0b", 3)), std::nullopt);  // NUL is valid UTF-8
}

TEST(Unicode, BertCharacterClasses) {
    EXPECT_TRUE(isBertPunctuation(U'$'));  // ASCII symbol counts as punctuation for BERT
    EXPECT_TRUE(isBertPunctuation(U'`'));
    EXPECT_TRUE(isBertPunctuation(0x2014));   // em dash, Pd
    EXPECT_TRUE(isBertPunctuation(0x00BF));   // ¿, Po
    EXPECT_FALSE(isBertPunctuation(0x00B0));  // °, So
    EXPECT_TRUE(isBertControl(0x200B));       // ZWSP, Cf
    EXPECT_TRUE(isBertControl(0xE000));       // private use
    EXPECT_TRUE(isBertControl(0x0085));       // NEL is Cc, so it is removed, not a space
    EXPECT_FALSE(isBertControl(U'\t'));
    EXPECT_FALSE(isBertControl(0x0378));  // unassigned: kept, as in HF
    EXPECT_TRUE(isBertWhitespace(0x3000));
    EXPECT_FALSE(isWhiteSpace(0x180E));  // Mongolian vowel separator left White_Space in 6.3
    EXPECT_TRUE(isChineseIdeograph(0x4E2D));
    EXPECT_TRUE(isChineseIdeograph(0x20000));
    EXPECT_FALSE(isChineseIdeograph(0x3042));  // hiragana
    EXPECT_FALSE(isChineseIdeograph(0xAC00));  // hangul
}

TEST(Unicode, LowercaseFollowsRust) {
    std::u32string out;
    appendLowercase(0x130, out);  // İ -> i + combining dot above
    appendLowercase(0x3A3, out);  // Σ -> σ, never ς
    appendLowercase(0x1C5, out);  // ǅ -> ǆ
    appendLowercase(0xDF, out);   // ß stays
    EXPECT_EQ(out, (std::u32string{U'i', 0x307, 0x3C3, 0x1C6, 0xDF}));
}

TEST(Unicode, CanonicalDecomposition) {
    std::u32string out;
    appendCanonicalDecomposition(0xE9, out);    // é
    appendCanonicalDecomposition(0xAC00, out);  // 가 (Hangul syllable)
    appendCanonicalDecomposition(0x212B, out);  // Å angstrom sign -> A + ring
    EXPECT_EQ(out, (std::u32string{U'e', 0x301, 0x1100, 0x1161, U'A', 0x30A}));
}

}  // namespace
}  // namespace attnscope::tokenize
