#include "attnscope/tokenize/pre_tokenizer.h"

#include <gtest/gtest.h>

namespace attnscope::tokenize {
namespace {

std::vector<std::string> words(std::string_view text, bool byteLevel) {
    const DecodedText d = decodeUtf8(text, "test");
    const NormalizedText t = makeNormalizedText(d, 0, d.chars.size());
    static const ByteLevelSplitter splitter;
    const std::vector<CharRange> ranges = byteLevel ? splitter.split(t) : bertPreTokenize(t);
    std::vector<std::string> out;
    for (const CharRange& r : ranges) {
        out.push_back(toUtf8(std::span(t).subspan(r.begin, r.end - r.begin)));
    }
    return out;
}

TEST(BertPreTokenizer, SplitsWhitespaceAndIsolatesPunctuation) {
    EXPECT_EQ(words("  Hi, you're $5!  ", false),
              (std::vector<std::string>{"Hi", ",", "you", "'", "re", "$", "5", "!"}));
    EXPECT_EQ(words("a\u3000b—c", false), (std::vector<std::string>{"a", "b", "—", "c"}));
    EXPECT_TRUE(words(" \t ", false).empty());
}

TEST(ByteLevelSplitter, Gpt2Regex) {
    EXPECT_EQ(words("Hello world's  end\n\n", true),
              (std::vector<std::string>{"Hello", " world", "'s", " ", " end", "\n\n"}));
    EXPECT_EQ(words("I'LL 123abc ٣!?", true),
              (std::vector<std::string>{"I", "'", "LL", " 123", "abc", " ٣", "!?"}));
    // U+180E is not whitespace for Oniguruma (HF), although PCRE2's \s would take it.
    EXPECT_EQ(words("a \u180E b", true), (std::vector<std::string>{"a", " \u180E", " b"}));
}

TEST(ByteLevelSplitter, LongWhitespaceRun) {
    const std::string text = "a" + std::string(200000, ' ') + "b";
    const std::vector<std::string> w = words(text, true);
    ASSERT_EQ(w.size(), 3u);
    EXPECT_EQ(w[1].size(), 199999u);
    EXPECT_EQ(w[2], " b");
}

TEST(ByteLevel, ByteTable) {
    const auto& table = byteToUnicode();
    EXPECT_EQ(table[' '], char32_t{0x120});   // Ġ
    EXPECT_EQ(table['\n'], char32_t{0x10A});  // Ċ
    EXPECT_EQ(table['A'], U'A');
    EXPECT_EQ(table[0xAD], char32_t{0x143});  // soft hyphen, the last remapped byte
    EXPECT_EQ(byteLevelString("é"), "Ã©");
}

}  // namespace
}  // namespace attnscope::tokenize
