#include "attnscope/tokenize/pre_tokenizer.h"

#include <gtest/gtest.h>

#include "attnscope/base/error.h"

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

std::vector<std::string> texts(const NormalizedText& t, const std::vector<CharRange>& ranges) {
    std::vector<std::string> out;
    for (const CharRange& r : ranges) {
        out.push_back(toUtf8(std::span(t).subspan(r.begin, r.end - r.begin)));
    }
    return out;
}

NormalizedText textOf(std::string_view utf8) {
    const DecodedText d = decodeUtf8(utf8, "test");
    return makeNormalizedText(d, 0, d.chars.size());
}

TEST(RegexSplitter, Llama3Pattern) {
    const RegexSplitter llama3(
        "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| "
        "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        false, "test");
    const NormalizedText t = textOf("I'LL pay 12345.6\n\n  ok \u180E!");
    EXPECT_EQ(texts(t, llama3.split(t)),
              (std::vector<std::string>{"I", "'LL", " pay", " ", "123", "45", ".", "6", "\n\n", " ",
                                        " ok", " \u180E!"}));
}

TEST(RegexSplitter, LiteralPatternAndBadRegex) {
    const RegexSplitter dot(".", true, "test");
    const NormalizedText t = textOf("a.b");
    const auto pieces = dot.find(t);
    ASSERT_EQ(pieces.size(), 3u);
    EXPECT_TRUE(pieces[1].isMatch);
    EXPECT_THROW(RegexSplitter("(a", false, "where"), UnsupportedModel);
}

TEST(SplitBehavior, AsHuggingFaceFoldsThem) {
    const NormalizedText t = textOf("a--b-");
    const RegexSplitter dash("-", true, "test");
    auto run = [&](SplitBehavior b, bool invert = false) {
        return texts(t, splitPieces(dash.find(t), b, invert));
    };
    EXPECT_EQ(run(SplitBehavior::Removed), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(run(SplitBehavior::Isolated), (std::vector<std::string>{"a", "-", "-", "b", "-"}));
    EXPECT_EQ(run(SplitBehavior::MergedWithPrevious), (std::vector<std::string>{"a-", "-", "b-"}));
    EXPECT_EQ(run(SplitBehavior::MergedWithNext), (std::vector<std::string>{"a", "-", "-b", "-"}));
    EXPECT_EQ(run(SplitBehavior::Contiguous), (std::vector<std::string>{"a", "--", "b", "-"}));
    EXPECT_EQ(run(SplitBehavior::Removed, true), (std::vector<std::string>{"-", "-", "-"}));
}

std::vector<std::string> metaspaceWords(const NormalizedText& t, const MetaspaceOptions& o) {
    std::vector<std::string> out;
    for (const NormalizedText& w : metaspace(t, o)) {
        out.push_back(toUtf8(w));
    }
    return out;
}

TEST(Metaspace, PrependSchemesAndSplit) {
    MetaspaceOptions o;
    o.prependScheme = PrependScheme::First;
    o.split = false;
    EXPECT_EQ(metaspaceWords(textOf("Hi you"), o), (std::vector<std::string>{"▁Hi▁you"}));
    EXPECT_EQ(metaspaceWords(textOf(" Hi"), o), (std::vector<std::string>{"▁Hi"}));
    // Not at the start of the input (after an added token): scheme First adds nothing.
    NormalizedText later = textOf("xHi");
    later.erase(later.begin());
    EXPECT_EQ(metaspaceWords(later, o), (std::vector<std::string>{"Hi"}));
    o.prependScheme = PrependScheme::Always;
    EXPECT_EQ(metaspaceWords(later, o), (std::vector<std::string>{"▁Hi"}));
    o.split = true;
    EXPECT_EQ(metaspaceWords(textOf("Hi  you"), o), (std::vector<std::string>{"▁Hi", "▁", "▁you"}));
    o.prependScheme = PrependScheme::Never;
    EXPECT_EQ(metaspaceWords(textOf("Hi"), o), (std::vector<std::string>{"Hi"}));
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
