// The Unigram and WordLevel models (unigram.h, word_level.h) on hand-made vocabularies: the rules
// the Rust crate follows on ties, unknown characters and byte fallback, pinned one by one (the
// parity tests check whole sentences against the crate itself), and the loader's recognition of
// old files without a model "type".
#include "attnscope/tokenize/unigram.h"

#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "../support/test_files.h"
#include "attnscope/base/error.h"
#include "attnscope/tokenize/tokenizer.h"
#include "attnscope/tokenize/word_level.h"

namespace attnscope::tokenize {
namespace {

using Pieces = std::vector<std::pair<std::string, double>>;

NormalizedText textOf(std::string_view utf8) {
    const DecodedText d = decodeUtf8(utf8, "test");
    return makeNormalizedText(d, 0, d.chars.size());
}

// "id:[begin,end)" per token, spans in characters of the word.
std::vector<std::string> run(const UnigramModel& m, std::string_view word) {
    std::vector<ModelToken> tokens;
    m.tokenize(textOf(word), tokens);
    std::vector<std::string> out;
    for (const ModelToken& t : tokens) {
        out.push_back(std::to_string(t.id) + ":" + std::to_string(t.begin) + "-" +
                      std::to_string(t.end));
    }
    return out;
}

UnigramModel model(Pieces pieces, std::optional<std::int32_t> unk, bool byteFallback = false) {
    UnigramOptions o;
    o.unkId = unk;
    o.byteFallback = byteFallback;
    o.source = "t.json: $.model";
    return UnigramModel(std::move(pieces), o);
}

TEST(Unigram, BestScoringSegmentationWins) {
    const auto m = model({{"<unk>", 0.0}, {"a", -1.0}, {"b", -1.0}, {"ab", -1.5}}, 0);
    EXPECT_EQ(run(m, "ab"), (std::vector<std::string>{"3:0-2"}));
    EXPECT_EQ(run(m, "ba"), (std::vector<std::string>{"2:0-1", "1:1-2"}));
}

TEST(Unigram, OnATieThePathReachingTheEndFirstWins) {
    // "abc" as ab|c and as a|bc both score -2. The crate fills the lattice by start position
    // and replaces an end's best path only when strictly better: bc (from start 1) reaches the
    // end before c (from start 2), so a|bc wins.
    const auto m = model({{"<unk>", 0.0}, {"ab", -1.0}, {"c", -1.0}, {"a", -1.0}, {"bc", -1.0}}, 0);
    EXPECT_EQ(run(m, "abc"), (std::vector<std::string>{"3:0-1", "4:1-3"}));
    // ab (last piece from start 0) reaches the end before a|b (last piece from start 1).
    const auto n = model({{"<unk>", 0.0}, {"a", -1.0}, {"b", -1.0}, {"ab", -2.0}}, 0);
    EXPECT_EQ(run(n, "ab"), (std::vector<std::string>{"3:0-2"}));  // ab set first, a|b only ties
}

TEST(Unigram, UnknownCharactersScoreBelowEveryPieceAndFuse) {
    const auto m = model({{"<unk>", 0.0}, {"a", -1.0}, {"x", -5.0}}, 0);
    // "☃☃" is covered by no piece: one fused <unk> spanning both characters.
    EXPECT_EQ(run(m, "a☃☃a"), (std::vector<std::string>{"1:0-1", "0:1-3", "1:3-4"}));
    // Two unknown runs apart stay apart.
    EXPECT_EQ(run(m, "☃a☃"), (std::vector<std::string>{"0:0-1", "1:1-2", "0:2-3"}));
    // The penalty is min_score - 10 = -15, so a covered character never goes unknown.
    EXPECT_EQ(run(m, "x"), (std::vector<std::string>{"2:0-1"}));
}

TEST(Unigram, ALiteralUnknownPieceFusesWithUnknownCharacters) {
    // The crate fuses by id, so the piece "<unk>" met in the text joins the run; the fused
    // text "<unk>☃" is no piece and becomes the unknown id again.
    const auto m = model({{"<unk>", 0.0}, {"a", -1.0}}, 0);
    EXPECT_EQ(run(m, "<unk>☃a"), (std::vector<std::string>{"0:0-6", "1:6-7"}));
}

TEST(Unigram, ByteFallbackSpellsUnknownRunsInBytes) {
    const auto m = model({{"<unk>", 0.0},
                          {"a", -1.0},
                          {"<0xE2>", 0.0},
                          {"<0x98>", 0.0},
                          {"<0x83>", 0.0},
                          {"<0xC3>", 0.0}},
                         0, true);
    // Every byte piece spans the whole unknown run, as in the crate.
    EXPECT_EQ(run(m, "a☃"), (std::vector<std::string>{"1:0-1", "2:1-2", "3:1-2", "4:1-2"}));
    // 'é' is C3 A9 and <0xA9> is missing: the whole run falls back to <unk>.
    EXPECT_EQ(run(m, "éa"), (std::vector<std::string>{"0:0-1", "1:1-2"}));
    const auto off = model({{"<unk>", 0.0}, {"a", -1.0}, {"<0xE2>", 0.0}}, 0, false);
    EXPECT_EQ(run(off, "☃"), (std::vector<std::string>{"0:0-1"}));
}

TEST(Unigram, DuplicatePiecesAreKnownByTheirLaterId) {
    const auto m = model({{"<unk>", 0.0}, {"a", -1.0}, {"a", -2.0}}, 0);
    EXPECT_EQ(run(m, "a"), (std::vector<std::string>{"2:0-1"}));
}

TEST(Unigram, NoUnknownIdMeansAnUncoveredCharacterIsAnError) {
    const auto m = model({{"a", -1.0}}, std::nullopt);
    EXPECT_EQ(run(m, "aa"), (std::vector<std::string>{"0:0-1", "0:1-2"}));
    testing::expectError<FormatError>([&] { run(m, "a☃"); }, {"t.json: $.model", "☃", "no unk_id"});
}

TEST(Unigram, UnknownIdMustBeInTheVocabulary) {
    testing::expectError<FormatError>(
        [] {
            model({{"a", -1.0}}, 1);
        },
        {"t.json: $.model", "unk_id 1", "1-piece"});
    testing::expectError<FormatError>([] { model({}, 0); }, {"empty vocabulary"});
}

WordLevelModel wordLevel(std::string unk) {
    Vocab v;
    v.add("C", 0);
    v.add("[UNK]", 1);
    v.add("Cl", 2);
    WordLevelOptions o;
    o.unkToken = std::move(unk);
    o.source = "w.json: $.model";
    return WordLevelModel(std::move(v), o);
}

TEST(WordLevel, WholeWordsOrTheUnknownToken) {
    const auto m = wordLevel("[UNK]");
    std::vector<ModelToken> out;
    m.tokenize(textOf("Cl"), out);
    m.tokenize(textOf("CCl"), out);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].id, 2);
    EXPECT_EQ(out[1].id, 1);
    EXPECT_EQ(out[1].end, 3u);  // the unknown token spans the whole word
}

TEST(WordLevel, AnAbsentUnknownTokenFailsOnUnknownWordsOnly) {
    const auto m = wordLevel("<unk>");
    EXPECT_FALSE(m.hasUnk());
    std::vector<ModelToken> out;
    m.tokenize(textOf("C"), out);
    EXPECT_EQ(out.size(), 1u);
    testing::expectError<FormatError>([&] { m.tokenize(textOf("CC"), out); },
                                      {"w.json: $.model.unk_token", "\"<unk>\"", "\"CC\""});
}

std::unique_ptr<Tokenizer> loadJson(const std::string& modelJson,
                                    const std::string& pipeline = "") {
    testing::ScratchDir dir;
    testing::writeFile(dir.path() / "tokenizer.json",
                       R"({"version": "1.0", "added_tokens": [], "normalizer": null,)" + pipeline +
                           R"( "post_processor": null, "decoder": null, "model": )" + modelJson +
                           "}");
    return loadTokenizerJson(dir.path() / "tokenizer.json");
}

TEST(TokenizerJsonModels, OldFilesAreRecognisedByTheirKeys) {
    // As the crate's untagged ModelWrapper: a vocab list is Unigram, a vocab object with
    // unk_token only is WordLevel.
    const auto uni = loadJson(R"({"unk_id": 0, "vocab": [["<unk>", 0.0], ["▁a", -1.0]]})",
                              R"( "pre_tokenizer": {"type": "Metaspace", "replacement": "▁",)"
                              R"( "add_prefix_space": true},)");
    EXPECT_EQ(uni->kind(), TokenizerKind::Unigram);
    EXPECT_EQ(uni->describe().find("Unigram (2 pieces, 2 tokens) from "), 0u) << uni->describe();
    EXPECT_EQ(ids(uni->encode("a b")), (std::vector<std::int32_t>{1, 0}));
    const auto word = loadJson(R"({"vocab": {"[UNK]": 0, "hi": 1}, "unk_token": "[UNK]"})",
                               R"( "pre_tokenizer": {"type": "WhitespaceSplit"},)");
    EXPECT_EQ(word->kind(), TokenizerKind::WordLevel);
    const auto tokens = word->encode(" hi  there ");
    EXPECT_EQ(ids(tokens), (std::vector<std::int32_t>{1, 0}));
    EXPECT_EQ(tokens[1].charBegin, 5u);
    EXPECT_EQ(tokens[1].charEnd, 10u);
}

TEST(TokenizerJsonModels, TypedUnigramWithByteFallbackDescribesItself) {
    const auto t = loadJson(R"({"type": "Unigram", "unk_id": 0, "byte_fallback": true,)"
                            R"( "vocab": [["<unk>", 0.0], ["a", -1.0], ["<0x21>", 0.0]]})");
    EXPECT_EQ(t->describe().find("Unigram (3 pieces, byte fallback"), 0u) << t->describe();
    EXPECT_EQ(ids(t->encode("a!")), (std::vector<std::int32_t>{1, 2}));
}

TEST(TokenizerJsonModels, AT5ModelFolderLoadsItsTokenizerJson) {
    const auto dir =
        std::filesystem::path(ATTNSCOPE_SHARED_DIR) / "data" / "tokenizers" / "t5-small";
    if (!std::filesystem::exists(dir)) {
        GTEST_SKIP() << dir.string() << " not found";
    }
    // tokenizer.json wins over spiece.model; its template is "$A </s>".
    const auto t = loadTokenizer(dir, "t5");
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->kind(), TokenizerKind::Unigram);
    EXPECT_EQ(t->describe().find("Unigram (32100 pieces, 32100 tokens) from "), 0u)
        << t->describe();
    const auto tokens = t->encode("Hello world");
    EXPECT_EQ(ids(tokens), (std::vector<std::int32_t>{8774, 296, 1}));
    EXPECT_EQ(tokens[1].charBegin, 6u);  // WhitespaceSplit drops the space: "▁world" is "world"
    EXPECT_EQ(tokens[1].charEnd, 11u);
    EXPECT_TRUE(tokens[2].special);
    EXPECT_EQ(t->specialId(SpecialRole::Sep), 1);
}

}  // namespace
}  // namespace attnscope::tokenize
