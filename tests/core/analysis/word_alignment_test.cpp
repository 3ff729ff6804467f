// Aligning model tokens to gold words by byte spans (word_alignment.h), for WordPiece and
// byte-level BPE tokens, multiword tokens (shared or split) and words that get no token.
#include "attnscope/analysis/word_alignment.h"

#include <gtest/gtest.h>

#include "attnscope/base/error.h"

namespace attnscope::analysis {
namespace {

tokenize::Token tok(const std::string& text, std::size_t begin, std::size_t end) {
    tokenize::Token t;
    t.text = text;
    t.byteBegin = begin;
    t.byteEnd = end;
    return t;
}

tokenize::Token special(const std::string& text) {
    tokenize::Token t;
    t.text = text;
    t.special = true;
    return t;
}

TEST(WordAlignment, WordPieceWithClsAndSep) {
    // "the unbelievable cat"
    const std::vector<tokenize::Token> tokens = {
        special("[CLS]"),      tok("the", 0, 3),   tok("un", 4, 6), tok("##believ", 6, 12),
        tok("##able", 12, 16), tok("cat", 17, 20), special("[SEP]")};
    const auto r = alignWords(tokens, {{0, 3}, {4, 16}, {17, 20}}, {"the", "unbelievable", "cat"});
    ASSERT_TRUE(r.ok()) << r.failure->reason;
    const WordAlignment& a = *r.alignment;
    EXPECT_EQ(a.unitTokens(), (std::vector<std::vector<int>>{{0}, {1}, {2, 3, 4}, {5}, {6}}));
    EXPECT_EQ(a.wordUnit, (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(a.tokenUnit, (std::vector<int>{0, 1, 2, 2, 2, 3, 4}));
    EXPECT_EQ(a.units[0].kind, UnitKind::Special);
    EXPECT_EQ(a.units[4].kind, UnitKind::Special);
    EXPECT_EQ(a.units[2].words, (std::vector<int>{1}));
    EXPECT_EQ(a.wordUnits(), (std::vector<int>{1, 2, 3}));
}

TEST(WordAlignment, ByteLevelTokensCarryTheirLeadingSpace) {
    // GPT-2 offsets keep the space: "Ġcat" spans " cat". No special tokens at all.
    const std::vector<tokenize::Token> tokens = {tok("The", 0, 3), tok("Ġc", 3, 5), tok("at", 5, 7),
                                                 tok("Ġsat", 7, 11)};
    const auto r = alignWords(tokens, {{0, 3}, {4, 7}, {8, 11}});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.alignment->unitTokens(), (std::vector<std::vector<int>>{{0}, {1, 2}, {3}}));
    EXPECT_EQ(r.alignment->wordUnit, (std::vector<int>{0, 1, 2}));
}

TEST(WordAlignment, PrefixSpaceAndTrimmedOffsets) {
    // add_prefix_space: the first token spans the added space too (offsets into the original
    // text start at 0); RoBERTa's trimmed offsets start at the word. Both align the same way.
    const std::vector<tokenize::Token> gpt2 = {tok("ĠThe", 0, 3), tok("Ġcat", 3, 7)};
    const std::vector<tokenize::Token> roberta = {special("<s>"), tok("ĠThe", 0, 3),
                                                  tok("Ġcat", 4, 7), special("</s>")};
    const auto g = alignWords(gpt2, {{0, 3}, {4, 7}});
    const auto r = alignWords(roberta, {{0, 3}, {4, 7}});
    ASSERT_TRUE(g.ok());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(g.alignment->wordUnit, (std::vector<int>{0, 1}));
    EXPECT_EQ(r.alignment->wordUnit, (std::vector<int>{1, 2}));
    EXPECT_EQ(r.alignment->units.size(), 4u);
}

TEST(WordAlignment, TokenOverTwoWordsGoesToTheFirst) {
    // UD "ca" + "n't" (SpaceAfter=No) in "I can't go"; GPT-2 gives "Ġcan" + "'t".
    const std::vector<ByteSpan> spans = {{0, 1}, {2, 4}, {4, 7}, {8, 10}};
    const std::vector<tokenize::Token> tokens = {tok("I", 0, 1), tok("Ġcan", 1, 5), tok("'t", 5, 7),
                                                 tok("Ġgo", 7, 10)};
    const auto r = alignWords(tokens, spans, {"I", "ca", "n't", "go"});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.alignment->unitTokens(), (std::vector<std::vector<int>>{{0}, {1}, {2}, {3}}));
}

TEST(WordAlignment, WordWithoutTokenIsAFailureNotAnException) {
    const std::vector<ByteSpan> spans = {{0, 1}, {2, 4}, {4, 7}, {8, 10}};
    const std::vector<tokenize::Token> tokens = {tok("I", 0, 1), tok("Ġcan't", 1, 7),
                                                 tok("Ġgo", 7, 10)};
    const auto r = alignWords(tokens, spans, {"I", "ca", "n't", "go"});
    ASSERT_FALSE(r.ok());
    ASSERT_TRUE(r.failure.has_value());
    EXPECT_EQ(r.failure->word, 2);
    EXPECT_NE(r.failure->reason.find("'n't'"), std::string::npos) << r.failure->reason;
    EXPECT_NE(r.failure->reason.find("bytes 4-7"), std::string::npos) << r.failure->reason;
}

TEST(WordAlignment, WordCoveredByASpecialTokenGetsNoToken) {
    tokenize::Token eot = special("<|endoftext|>");
    eot.byteBegin = 4;
    eot.byteEnd = 17;
    const auto r = alignWords({tok("Hi", 0, 2), eot}, {{0, 2}, {4, 17}});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.failure->word, 1);
}

// Coreference (issue 16, D11-D12): the same two cases align, the words without a token get no
// unit, and the others keep theirs.
TEST(WordAlignment, NoUnitLeavesAWordWithoutATokenOut) {
    const std::vector<tokenize::Token> tokens = {tok("I", 0, 1), tok("Ġcan't", 1, 7),
                                                 tok("Ġgo", 7, 10)};
    const auto r =
        alignWords(tokens, {{0, 1}, {2, 4}, {4, 7}, {8, 10}}, {}, {}, MissingWords::NoUnit);
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r.failure.has_value());
    EXPECT_EQ(r.alignment->wordUnit, (std::vector<int>{0, 1, -1, 2}));
    EXPECT_EQ(r.alignment->unitTokens(), (std::vector<std::vector<int>>{{0}, {1}, {2}}));
    EXPECT_EQ(r.alignment->wordUnits(), (std::vector<int>{0, 1, 2}));

    tokenize::Token eot = special("<|endoftext|>");
    eot.byteBegin = 4;
    eot.byteEnd = 17;
    const auto covered =
        alignWords({tok("Hi", 0, 2), eot}, {{0, 2}, {4, 17}}, {}, {}, MissingWords::NoUnit);
    ASSERT_TRUE(covered.ok());
    EXPECT_EQ(covered.alignment->wordUnit, (std::vector<int>{0, -1}));
    EXPECT_EQ(covered.alignment->units[1].kind, UnitKind::Special);
}

TEST(WordAlignment, MultiwordTokenWordsShareOneUnit) {
    // French "du chat" = UD words "de" "le" "chat"; "de" and "le" carry the span of "du".
    const std::vector<tokenize::Token> tokens = {special("[CLS]"), tok("du", 0, 2), tok("ch", 3, 5),
                                                 tok("##at", 5, 7), special("[SEP]")};
    const auto r = alignWords(tokens, {{0, 2}, {0, 2}, {3, 7}}, {"de", "le", "chat"});
    ASSERT_TRUE(r.ok());
    const WordAlignment& a = *r.alignment;
    EXPECT_EQ(a.wordUnit, (std::vector<int>{1, 1, 2}));
    EXPECT_EQ(a.units[1].words, (std::vector<int>{0, 1}));
    EXPECT_EQ(a.units[1].tokens, (std::vector<int>{1}));
    EXPECT_EQ(a.wordUnits(), (std::vector<int>{1, 2}));
}

// Issue 16: "I can't go" with UD "ca" + "n't" sharing the span of "can't" (bytes 2-7), their
// own pieces 2-4 and 4-7, and GPT-2's "Ġcan" + "'t".
const std::vector<ByteSpan> kCantShared = {{0, 1}, {2, 7}, {2, 7}, {8, 10}};
const std::vector<ByteSpan> kCantOwn = {{0, 1}, {2, 4}, {4, 7}, {8, 10}};
const std::vector<std::string> kCantWords = {"I", "ca", "n't", "go"};

TEST(WordAlignment, MultiwordTokenSplitsWhereItsTokensStart) {
    const std::vector<tokenize::Token> tokens = {tok("I", 0, 1), tok("Ġcan", 1, 5), tok("'t", 5, 7),
                                                 tok("Ġgo", 7, 10)};
    // "Ġcan" starts (first non-space byte) in "ca", "'t" in "n't": one unit each.
    const auto split = alignWords(tokens, kCantShared, kCantWords, kCantOwn);
    ASSERT_TRUE(split.ok());
    EXPECT_EQ(split.alignment->unitTokens(), (std::vector<std::vector<int>>{{0}, {1}, {2}, {3}}));
    EXPECT_EQ(split.alignment->wordUnit, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(split.alignment->units[2].words, (std::vector<int>{2}));
    // Without own spans (MultiwordRule::Share) both words get both tokens.
    const auto shared = alignWords(tokens, kCantShared, kCantWords);
    ASSERT_TRUE(shared.ok());
    EXPECT_EQ(shared.alignment->unitTokens(), (std::vector<std::vector<int>>{{0}, {1, 2}, {3}}));
    EXPECT_EQ(shared.alignment->wordUnit, (std::vector<int>{0, 1, 1, 2}));
}

TEST(WordAlignment, MultiwordTokenSharesWhenAWordWouldGetNoToken) {
    // A tokenizer that keeps "can't" whole: "n't" would get nothing, so the two words share it
    // (the sentence is still scored, not skipped).
    const std::vector<tokenize::Token> tokens = {tok("I", 0, 1), tok("Ġcan't", 1, 7),
                                                 tok("Ġgo", 7, 10)};
    const auto r = alignWords(tokens, kCantShared, kCantWords, kCantOwn);
    ASSERT_TRUE(r.ok()) << r.failure->reason;
    EXPECT_EQ(r.alignment->unitTokens(), (std::vector<std::vector<int>>{{0}, {1}, {2}}));
    EXPECT_EQ(r.alignment->wordUnit, (std::vector<int>{0, 1, 1, 2}));
    EXPECT_EQ(r.alignment->units[1].words, (std::vector<int>{1, 2}));
}

TEST(WordAlignment, MultiwordTokenPiecesTakeEveryTokenStartingInThem) {
    // WordPiece "tomorrow's" = "tomorrow" "'" "s": the last two start in "'s".
    const std::vector<tokenize::Token> tokens = {special("[CLS]"), tok("tomorrow", 0, 8),
                                                 tok("'", 8, 9), tok("s", 9, 10), special("[SEP]")};
    const auto r = alignWords(tokens, {{0, 10}, {0, 10}}, {"tomorrow", "'s"}, {{0, 8}, {8, 10}});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.alignment->unitTokens(), (std::vector<std::vector<int>>{{0}, {1}, {2, 3}, {4}}));
    EXPECT_EQ(r.alignment->wordUnits(), (std::vector<int>{1, 2}));
    EXPECT_THROW(alignWords(tokens, {{0, 10}, {0, 10}}, {}, {{0, 8}}), InvalidArgument);
}

TEST(WordAlignment, WhitespaceOnlyTokenIsAUnitOfItsOwn) {
    // "a  b": GPT-2 makes the extra space a token "Ġ" that touches no word.
    const std::vector<tokenize::Token> tokens = {tok("a", 0, 1), tok("Ġ", 1, 2), tok("Ġb", 2, 4)};
    const auto r = alignWords(tokens, {{0, 1}, {3, 4}});
    ASSERT_TRUE(r.ok());
    const WordAlignment& a = *r.alignment;
    ASSERT_EQ(a.units.size(), 3u);
    EXPECT_EQ(a.units[1].kind, UnitKind::Other);
    EXPECT_EQ(a.wordUnit, (std::vector<int>{0, 2}));
}

TEST(WordAlignment, LoneSpaceTokenBelongsToTheWordAfterIt) {
    // GPT-2 without the merge "Ġo" gives " old" as "Ġ" "o" "ld": the "Ġ" starts the word.
    const std::vector<tokenize::Token> tokens = {tok("The", 0, 3), tok("Ġ", 3, 4), tok("o", 4, 5),
                                                 tok("ld", 5, 7)};
    const auto r = alignWords(tokens, {{0, 3}, {4, 7}});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.alignment->unitTokens(), (std::vector<std::vector<int>>{{0}, {1, 2, 3}}));
    // A lone space token is enough for a word to count as aligned.
    const auto only = alignWords({tok("a", 0, 1), tok("Ġ", 1, 2)}, {{0, 1}, {2, 6}});
    ASSERT_TRUE(only.ok());
    EXPECT_EQ(only.alignment->wordUnit, (std::vector<int>{0, 1}));
}

TEST(WordAlignment, EmptyWordSpanGetsNoToken) {
    const auto r = alignWords({tok("a", 0, 1)}, {{0, 1}, {1, 1}});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.failure->word, 1);
}

TEST(WordAlignment, SpansOutOfOrderThrow) {
    const std::vector<tokenize::Token> tokens = {tok("ab", 0, 2)};
    EXPECT_THROW(alignWords(tokens, {{0, 2}, {1, 3}}), InvalidArgument);  // overlap
    EXPECT_THROW(alignWords(tokens, {{3, 4}, {0, 2}}), InvalidArgument);  // order
    EXPECT_THROW(alignWords(tokens, {{2, 1}}), InvalidArgument);          // reversed
    EXPECT_THROW(alignWords(tokens, {{0, 2}}, {"a", "b"}), InvalidArgument);
}

}  // namespace
}  // namespace attnscope::analysis
