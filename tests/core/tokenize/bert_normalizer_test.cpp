#include "attnscope/tokenize/bert_normalizer.h"

#include <gtest/gtest.h>

namespace attnscope::tokenize {
namespace {

NormalizedText normalized(std::string_view text, const BertNormalizerOptions& options = {}) {
    const DecodedText d = decodeUtf8(text, "test");
    return bertNormalize(makeNormalizedText(d, 0, d.chars.size()), options);
}

std::string spans(const NormalizedText& t) {
    std::string out;
    for (const NormalizedChar& c : t) {
        out += std::to_string(c.origBegin) + "-" + std::to_string(c.origEnd) + " ";
    }
    return out;
}

TEST(BertNormalizer, StripsAccentsAndKeepsAlignment) {
    const NormalizedText t = normalized("Éa");  // É is 2 bytes
    EXPECT_EQ(toUtf8(t), "ea");
    EXPECT_EQ(spans(t), "0-2 2-3 ");
}

TEST(BertNormalizer, DottedCapitalIStripsBeforeLowercasing) {
    EXPECT_EQ(toUtf8(normalized("İ")), "i");
    BertNormalizerOptions keepAccents;
    keepAccents.stripAccents = false;
    const NormalizedText t = normalized("İx", keepAccents);
    EXPECT_EQ(toUtf8(t), "i\u0307x");  // Rust's two-character lower case of U+0130
    EXPECT_EQ(spans(t), "0-2 0-2 2-3 ");
}

TEST(BertNormalizer, CleanTextAndChineseChars) {
    const NormalizedText t = normalized("a\tb\u200b\x01中");
    EXPECT_EQ(toUtf8(t), "a b 中 ");
    // The spaces around 中 share its span (bytes 7-10).
    EXPECT_EQ(spans(t), "0-1 1-2 2-3 7-10 7-10 7-10 ");
}

TEST(BertNormalizer, CasedKeepsAccents) {
    BertNormalizerOptions cased;
    cased.lowercase = false;
    EXPECT_EQ(toUtf8(normalized("Éa", cased)), "Éa");
    cased.stripAccents = true;
    EXPECT_EQ(toUtf8(normalized("Éa", cased)), "Ea");
}

TEST(BertNormalizer, NfdReordersCombiningMarks) {
    // a + acute (class 230) + dot below (class 220) -> a + dot below + acute
    const NormalizedText t = nfd(makeDetachedText(U"a\u0301\u0323"));
    EXPECT_EQ(codePoints(t), U"a\u0323\u0301");
}

}  // namespace
}  // namespace attnscope::tokenize
