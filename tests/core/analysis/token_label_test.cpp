// Readable token labels for axes and predictions: byte-level pieces decoded when they spell
// valid UTF-8, space and newline markers made visible, everything else left as stored.
#include <gtest/gtest.h>

#include "attnscope/analysis/sentence_analysis.h"

namespace attnscope::analysis {
namespace {

TEST(TokenLabel, ByteLevelPiecesBecomeTheirText) {
    EXPECT_EQ(tokenLabel("\xC4\xA0the"), "\xC2\xB7the");                // "Ġthe" -> "·the"
    EXPECT_EQ(tokenLabel("\xC3\xA2\xC4\xA2\xC4\xBB"), "\xE2\x80\x99");  // "âĢĻ" -> "’"
    EXPECT_EQ(tokenLabel("\xC4\xA0\xC3\xA2\xC4\xA2\xC4\xBB"), "\xC2\xB7\xE2\x80\x99");
    EXPECT_EQ(tokenLabel("\xC4\x8A"), "\xE2\x86\xB5");  // "Ċ" -> "↵"
}

TEST(TokenLabel, OtherPiecesKeepTheirSpelling) {
    EXPECT_EQ(tokenLabel("##ing"), "##ing");
    EXPECT_EQ(tokenLabel("caf\xC3\xA9"),
              "caf\xC3\xA9");  // WordPiece "café": 0xE9 alone is not UTF-8
    EXPECT_EQ(tokenLabel("\xE2\x96\x81the"), "\xC2\xB7the");  // SentencePiece "▁the"
    EXPECT_EQ(tokenLabel("<0x0A>"), "<0x0A>");
    EXPECT_EQ(tokenLabel("\xC4\x80"), "\xC4\x80");  // "Ā" stands for byte 0x00: no glyph
    EXPECT_EQ(tokenLabel("[MASK]"), "[MASK]");
}

}  // namespace
}  // namespace attnscope::analysis
