// The normalizers of normalizer.h (Prepend, Replace, NFC) and the spans they leave, which must be
// Hugging Face's (the parity tests check whole sentences; these pin the rules).
#include "attnscope/tokenize/normalizer.h"

#include <gtest/gtest.h>

#include "normalized_spans.h"

namespace attnscope::tokenize {
namespace {

TEST(Normalizer, PrependSharesTheFirstCharactersSpan) {
    NormalizedText t = textOf("éa");
    prependText(t, U"\u2581");
    EXPECT_EQ(spans(t), (std::vector<std::string>{"▁:0-2", "é:0-2", "a:2-3"}));
    NormalizedText empty;
    prependText(empty, U"\u2581");
    EXPECT_TRUE(empty.empty());  // HF prepends nothing to an empty text
}

TEST(Normalizer, ReplaceKeepsTheReplacedCharactersSpan) {
    const NormalizedText t = replaceText(textOf("a b  c"), U" ", U"\u2581");
    EXPECT_EQ(spans(t),
              (std::vector<std::string>{"a:0-1", "▁:1-2", "b:2-3", "▁:3-4", "▁:4-5", "c:5-6"}));
    // Longer patterns: the replacement takes the span of the last replaced character.
    EXPECT_EQ(spans(replaceText(textOf("xaby"), U"ab", U"Z")),
              (std::vector<std::string>{"x:0-1", "Z:2-3", "y:3-4"}));
}

TEST(Normalizer, LlamaLegacySequence) {
    std::vector<NormalizerStep> steps(2);
    steps[0].kind = NormalizerKind::Prepend;
    steps[0].text = U"\u2581";
    steps[1].kind = NormalizerKind::Replace;
    steps[1].text = U" ";
    steps[1].content = U"\u2581";
    EXPECT_EQ(toUtf8(normalize(textOf(" Hi you"), steps)), "▁▁Hi▁you");
}

TEST(Normalizer, NfcComposesAndKeepsTheStartersSpan) {
    // "e" + U+0301 -> "é", spanning the "e" only (HF's alignment of a composed character).
    EXPECT_EQ(spans(nfc(textOf("ce\u0301x"))),
              (std::vector<std::string>{"c:0-1", "é:1-2", "x:4-5"}));
    // Canonical reordering: a + U+0301 (230) + U+0323 (220) -> "ạ" + U+0301.
    EXPECT_EQ(toUtf8(nfc(textOf("a\u0301\u0323"))), "\u1EA1\u0301");
    // Singletons and Hangul jamo (which compose across starters).
    EXPECT_EQ(toUtf8(nfc(textOf("\u2126 \u1100\u1161\u11A8"))), "\u03A9 \uAC01");
    EXPECT_EQ(spans(nfc(textOf("ab"))), (std::vector<std::string>{"a:0-1", "b:1-2"}));
}

}  // namespace
}  // namespace attnscope::tokenize
