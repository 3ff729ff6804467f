#include "attnscope/tokenize/bpe.h"

#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "attnscope/base/error.h"
#include "attnscope/tokenize/pre_tokenizer.h"
#include "on_threads.h"

namespace attnscope::tokenize {
namespace {

// All 256 byte pieces (ids 0-255 in byte order) plus `extra` pieces after them.
Vocab byteVocab(const std::vector<std::string>& extra) {
    Vocab v;
    for (int b = 0; b < 256; ++b) {
        v.add(byteLevelString(std::string(1, static_cast<char>(b))), b);
    }
    for (std::size_t i = 0; i < extra.size(); ++i) {
        v.add(extra[i], static_cast<std::int32_t>(256 + i));
    }
    return v;
}

std::vector<std::string> pieces(const BpeModel& m, std::string_view word) {
    std::vector<ModelToken> out;
    m.tokenize(word, out);
    std::vector<std::string> result;
    for (const ModelToken& t : out) {
        result.push_back(m.vocab().piece(t.id));
    }
    return result;
}

// A SentencePiece-style vocabulary: characters, "▁" pieces and the 256 <0xNN> byte pieces.
Vocab charVocab() {
    Vocab v;
    v.add("<unk>", 0);
    const char* hex = "0123456789ABCDEF";
    for (int b = 0; b < 256; ++b) {
        v.add(std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">", 3 + b);
    }
    std::int32_t id = 300;
    for (const char* piece : {"\u2581", "h", "i", "\u2581h", "\u2581hi", "é"}) {
        v.add(piece, id++);
    }
    return v;
}

TEST(Bpe, CharacterLevelWithByteFallback) {
    const std::vector<BpeMerge> merges = {{"\u2581", "h", "1"}, {"\u2581h", "i", "2"}};
    BpeOptions options;
    options.byteLevel = false;
    options.byteFallback = true;
    options.unkToken = "<unk>";
    const BpeModel m(charVocab(), merges, options);
    EXPECT_EQ(pieces(m, "\u2581hi"), (std::vector<std::string>{"\u2581hi"}));
    // 'é' is a piece; '€' (E2 82 AC) is not and falls back to its bytes, each spanning one byte.
    EXPECT_EQ(pieces(m, "é€h"), (std::vector<std::string>{"é", "<0xE2>", "<0x82>", "<0xAC>", "h"}));
    std::vector<ModelToken> out;
    m.tokenize("é€", out);
    ASSERT_EQ(out.size(), 4u);
    EXPECT_EQ(out[0].end, 2u);
    EXPECT_EQ(out[1].begin, 2u);
    EXPECT_EQ(out[3].end, 5u);
}

TEST(Bpe, CharacterLevelUnknownsFuseWithoutByteFallback) {
    BpeOptions options;
    options.byteLevel = false;
    options.unkToken = "<unk>";
    options.fuseUnk = true;
    const BpeModel fused(charVocab(), {}, options);
    EXPECT_EQ(pieces(fused, "h€€i"), (std::vector<std::string>{"h", "<unk>", "i"}));
    options.fuseUnk = false;
    const BpeModel unfused(charVocab(), {}, options);
    EXPECT_EQ(pieces(unfused, "h€€i"), (std::vector<std::string>{"h", "<unk>", "<unk>", "i"}));
}

TEST(Bpe, IgnoreMergesTakesAWholeWordPiece) {
    const std::vector<BpeMerge> merges = {{"a", "a", "1"}};
    BpeOptions options;
    options.ignoreMerges = true;
    const BpeModel m(byteVocab({"aa", "aaa"}), merges, options);
    EXPECT_EQ(pieces(m, "aaa"), (std::vector<std::string>{"aaa"}));
    EXPECT_EQ(pieces(m, "aaaa"), (std::vector<std::string>{"aa", "aa"}));
}

TEST(Bpe, MergesByRankLeftmostFirst) {
    const std::vector<BpeMerge> merges = {{"a", "a", "1"}, {"aa", "a", "2"}, {"b", "c", "3"}};
    const BpeModel m(byteVocab({"aa", "aaa", "bc"}), merges, {});
    EXPECT_EQ(pieces(m, "aaaa"), (std::vector<std::string>{"aa", "aa"}));
    EXPECT_EQ(pieces(m, "aaa"), (std::vector<std::string>{"aaa"}));
    EXPECT_EQ(pieces(m, "aaaaa"), (std::vector<std::string>{"aa", "aaa"}));
    EXPECT_EQ(pieces(m, "abc"), (std::vector<std::string>{"a", "bc"}));
}

TEST(Bpe, LowerRankWinsOverPosition) {
    const std::vector<BpeMerge> merges = {{"b", "c", "1"}, {"a", "b", "2"}};
    const BpeModel m(byteVocab({"bc", "ab"}), merges, {});
    EXPECT_EQ(pieces(m, "abc"), (std::vector<std::string>{"a", "bc"}));
}

TEST(Bpe, SpansAreByteRanges) {
    const std::vector<BpeMerge> merges = {{"Ã", "©", "1"}};
    const BpeModel m(byteVocab({"Ã©"}), merges, {});
    std::vector<ModelToken> out;
    m.tokenize("xé", out);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[1].begin, 1u);
    EXPECT_EQ(out[1].end, 3u);
}

TEST(Bpe, MergeWithUnknownPieceNamesIt) {
    const std::vector<BpeMerge> merges = {{"a", "zz", "line 2"}};
    testing::expectError<FormatError>([&] { BpeModel m(byteVocab({}), merges, {}); },
                                      {"line 2", "\"zz\""});
}

TEST(Bpe, CachedAndUncachedAgreeAcrossThreads) {
    const std::vector<BpeMerge> merges = {{"a", "b", "1"}, {"ab", "c", "2"}};
    BpeOptions uncached;
    uncached.useCache = false;
    const BpeModel cached(byteVocab({"ab", "abc"}), merges, {});
    const BpeModel plain(byteVocab({"ab", "abc"}), merges, uncached);
    const std::vector<int> ok = checkOnThreads(4, [&](std::size_t) {
        bool same = true;
        for (int k = 0; k < 500; ++k) {
            const std::string word = "abcab" + std::to_string(k % 37);
            same = same && pieces(cached, word) == pieces(plain, word);
        }
        return same;
    });
    EXPECT_EQ(ok, (std::vector<int>{1, 1, 1, 1}));
}

}  // namespace
}  // namespace attnscope::tokenize
