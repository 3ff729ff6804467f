#include "attnscope/tokenize/wordpiece.h"

#include <gtest/gtest.h>

#include "attnscope/base/error.h"

namespace attnscope::tokenize {
namespace {

Vocab makeVocab(const std::vector<std::string>& pieces) {
    Vocab v;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        v.add(pieces[i], static_cast<std::int32_t>(i));
    }
    return v;
}

std::vector<std::int32_t> pieceIds(const WordPieceModel& m, std::u32string_view word) {
    std::vector<ModelToken> out;
    m.tokenize(makeDetachedText(word), out);
    std::vector<std::int32_t> ids;
    for (const ModelToken& t : out) {
        ids.push_back(t.id);
    }
    return ids;
}

TEST(WordPiece, GreedyLongestMatchFirst) {
    const WordPieceModel m(makeVocab({"[UNK]", "un", "unaff", "##aff", "##able", "##a", "##ble"}),
                           {});
    EXPECT_EQ(pieceIds(m, U"unaffable"), (std::vector<std::int32_t>{2, 4}));  // unaff ##able
    EXPECT_EQ(pieceIds(m, U"unable"), (std::vector<std::int32_t>{1, 4}));     // un ##able
    EXPECT_EQ(pieceIds(m, U"unx"), (std::vector<std::int32_t>{0}));           // whole word [UNK]
}

TEST(WordPiece, SpansAreCharacterRanges) {
    const WordPieceModel m(makeVocab({"[UNK]", "é", "##té"}), {});
    std::vector<ModelToken> out;
    m.tokenize(makeDetachedText(U"été"), out);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[1].begin, 1u);
    EXPECT_EQ(out[1].end, 3u);
}

TEST(WordPiece, MaxInputCharsCountsCodePoints) {
    WordPieceOptions options;
    options.maxInputCharsPerWord = 3;
    const WordPieceModel m(makeVocab({"[UNK]", "é", "##é"}), options);
    EXPECT_EQ(pieceIds(m, U"ééé"), (std::vector<std::int32_t>{1, 2, 2}));  // 6 bytes, 3 chars
    EXPECT_EQ(pieceIds(m, U"éééé"), (std::vector<std::int32_t>{0}));
}

TEST(WordPiece, MissingUnknownTokenIsAFormatError) {
    EXPECT_THROW(WordPieceModel(makeVocab({"a"}), {}), FormatError);
}

}  // namespace
}  // namespace attnscope::tokenize
