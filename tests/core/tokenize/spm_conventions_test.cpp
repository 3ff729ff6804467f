// The slow SentencePiece tokenizers' loaders and rules (slow_spm_tokenizer.h, issue 20): broken
// Marian vocab.json files and truncated .spm / spiece.model files are FormatErrors naming the
// file and place; each convention's special tokens, language codes, sentinels and re-splits on
// the real files of ../shared (skipped without it). Every sentence of the treebanks is checked
// against the reference in spm_parity_test.cpp.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "../support/shared_data.h"
#include "../support/test_files.h"
#include "attnscope/base/error.h"
#include "attnscope/tokenize/tokenizer.h"

namespace attnscope::tokenize {
namespace {

namespace fs = std::filesystem;
using attnscope::testing::kSharedTokenizers;
using attnscope::testing::readFile;
using attnscope::testing::ScratchDir;
using attnscope::testing::writeFile;

const fs::path kMarian = kSharedTokenizers / "opus-mt-en-mg";
const fs::path kAlbert = kSharedTokenizers / "albert-base-v2";
const fs::path kT5 = kSharedTokenizers / "t5-small";

// The message of the FormatError loading `dir` throws ("" when it throws none).
std::string formatError(const fs::path& dir) {
    try {
        loadTokenizer(dir, "marian");
    } catch (const FormatError& e) {
        return e.what();
    }
    return "";
}

// A Marian folder whose vocab.json is `vocabJson`; the .spm files are never reached, the
// vocabulary being read first.
fs::path marianWithVocab(const ScratchDir& dir, const std::string& vocabJson) {
    writeFile(dir.path() / "source.spm", "not reached");
    writeFile(dir.path() / "target.spm", "not reached");
    writeFile(dir.path() / "vocab.json", vocabJson);
    return dir.path();
}

TEST(MarianVocabJson, AStringIdNamesThePiece) {
    ScratchDir dir;
    const std::string e = formatError(marianWithVocab(dir, R"({"</s>": 0, "<unk>": "1"})"));
    EXPECT_NE(e.find("vocab.json: $.<unk>"), std::string::npos) << e;
    EXPECT_NE(e.find("\"1\""), std::string::npos) << e;
}

TEST(MarianVocabJson, ANegativeIdIsRefused) {
    ScratchDir dir;
    const std::string e = formatError(marianWithVocab(dir, R"({"</s>": 0, "<unk>": -1})"));
    EXPECT_NE(e.find("vocab.json: $.<unk>"), std::string::npos) << e;
}

TEST(MarianVocabJson, AnIdOf2To31IsRefused) {
    ScratchDir dir;
    const std::string e = formatError(marianWithVocab(dir, R"({"</s>": 0, "<unk>": 2147483648})"));
    EXPECT_NE(e.find("vocab.json: $.<unk>"), std::string::npos) << e;
}

TEST(MarianVocabJson, AnIdPastThePiecesIsOutOfRange) {
    ScratchDir dir;
    const std::string e = formatError(marianWithVocab(dir, R"({"</s>": 0, "<unk>": 7})"));
    EXPECT_NE(e.find("vocab.json: $.<unk>: id 7 is out of range: the file has 2 pieces"),
              std::string::npos)
        << e;
}

TEST(MarianVocabJson, ARepeatedIdNamesBothPieces) {
    ScratchDir dir;
    const std::string e =
        formatError(marianWithVocab(dir, R"({"</s>": 0, "<unk>": 1, "<pad>": 1})"));
    // nlohmann::json keeps an object's keys sorted: <pad> comes first.
    EXPECT_NE(e.find("vocab.json: $.<unk>: id 1 is also the id of \"<pad>\""), std::string::npos)
        << e;
}

TEST(MarianVocabJson, NotAnObjectIsRefused) {
    ScratchDir dir;
    const std::string e = formatError(marianWithVocab(dir, R"(["</s>", "<unk>"])"));
    EXPECT_NE(e.find("vocab.json: $: expected an object"), std::string::npos) << e;
}

TEST(MarianVocabJson, TheUnknownTokenMustBeThere) {
    ScratchDir dir;
    const std::string e = formatError(marianWithVocab(dir, R"({"</s>": 0, "a": 1})"));
    EXPECT_NE(e.find("vocab.json: the unk_token \"<unk>\" is not in the vocabulary"),
              std::string::npos)
        << e;
}

TEST(SentencePieceFiles, ATruncatedSourceSpmNamesTheFile) {
    ATTNSCOPE_SKIP_WITHOUT(kMarian);
    ScratchDir dir;
    const std::string spm = readFile(kMarian / "source.spm");
    writeFile(dir.path() / "source.spm", spm.substr(0, spm.size() / 3));
    writeFile(dir.path() / "target.spm", readFile(kMarian / "target.spm"));
    writeFile(dir.path() / "vocab.json", readFile(kMarian / "vocab.json"));
    const std::string e = formatError(dir.path());
    EXPECT_NE(e.find("source.spm: not a readable SentencePiece model"), std::string::npos) << e;
}

TEST(SentencePieceFiles, ATruncatedSpieceModelNamesTheFile) {
    ATTNSCOPE_SKIP_WITHOUT(kAlbert);
    ScratchDir dir;
    const std::string spm = readFile(kAlbert / "spiece.model");
    writeFile(dir.path() / "spiece.model", spm.substr(0, spm.size() / 2));
    writeFile(dir.path() / "tokenizer_config.json", readFile(kAlbert / "tokenizer_config.json"));
    try {
        loadTokenizer(dir.path(), "");
        FAIL() << "a truncated spiece.model loaded";
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("spiece.model: not a readable SentencePiece model"),
                  std::string::npos)
            << e.what();
    }
}

TEST(SentencePieceFiles, SpieceModelOfAnUnknownClassIsUnsupported) {
    ATTNSCOPE_SKIP_WITHOUT(kAlbert);
    ScratchDir dir;
    writeFile(dir.path() / "spiece.model", readFile(kAlbert / "spiece.model"));
    writeFile(dir.path() / "tokenizer_config.json", R"({"tokenizer_class": "XLNetTokenizer"})");
    EXPECT_THROW(loadTokenizer(dir.path(), ""), UnsupportedModel);
}

TEST(SentencePieceFiles, T5WithLegacyFalseIsUnsupported) {
    ATTNSCOPE_SKIP_WITHOUT(kT5);
    ScratchDir dir;
    writeFile(dir.path() / "spiece.model", readFile(kT5 / "spiece.model"));
    writeFile(dir.path() / "tokenizer_config.json",
              R"({"tokenizer_class": "T5Tokenizer", "legacy": false})");
    EXPECT_THROW(loadTokenizer(dir.path(), ""), UnsupportedModel);
}

TEST(MarianTokenizer, SourceAndTargetShareVocabJson) {
    ATTNSCOPE_SKIP_WITHOUT(kMarian);
    const auto source = loadTokenizer(kMarian, "");  // config.json says marian
    const auto target = loadTargetTokenizer(kMarian, "");
    ASSERT_NE(source, nullptr);
    ASSERT_NE(target, nullptr);
    EXPECT_EQ(source->describe().rfind("Marian: source.spm + target.spm, vocab.json (54688)", 0),
              0u)
        << source->describe();
    EXPECT_EQ(source->vocabSize(), 54688u);
    EXPECT_EQ(target->vocabSize(), 54688u);
    EXPECT_EQ(source->specialId(SpecialRole::Pad), 54687);  // config.json's pad_token_id
    EXPECT_EQ(source->specialId(SpecialRole::Eos), 0);
    EXPECT_EQ(source->specialId(SpecialRole::Unk), 1);
    const auto tokens = target->encode("Manao ahoana");
    ASSERT_FALSE(tokens.empty());
    EXPECT_EQ(tokens.back().id, 0);  // </s>
    EXPECT_TRUE(tokens.back().special);
}

TEST(MarianTokenizer, ALeadingLanguageCodeStaysWhole) {
    ATTNSCOPE_SKIP_WITHOUT(kMarian);
    const auto tok = loadTokenizer(kMarian, "marian");
    const auto tokens = tok->encode(">>fra<< Hello");
    ASSERT_GE(tokens.size(), 3u);
    EXPECT_EQ(tokens[0].text, ">>fra<<");
    EXPECT_EQ(tokens[0].id, 1);  // not in en-mg's vocab.json: <unk>, as MarianTokenizer maps it
    EXPECT_EQ(tokens[0].charBegin, 0u);
    EXPECT_EQ(tokens[0].charEnd, 7u);
    // Elsewhere a code is removed before SentencePiece sees the text.
    EXPECT_EQ(ids(tok->encode("a >>x<< b")), ids(tok->encode("a  b")));
}

TEST(MarianTokenizer, AMissingTargetSpmIsAnErrorNotTheSourceSide) {
    ATTNSCOPE_SKIP_WITHOUT(kMarian);
    ScratchDir dir;
    writeFile(dir.path() / "source.spm", readFile(kMarian / "source.spm"));
    writeFile(dir.path() / "vocab.json", readFile(kMarian / "vocab.json"));
    ASSERT_NE(loadTokenizer(dir.path(), "marian"), nullptr);
    try {
        loadTargetTokenizer(dir.path(), "marian");
        FAIL() << "a Marian folder without target.spm gave a target tokenizer";
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("target.spm: cannot open"), std::string::npos)
            << e.what();
    }
}

TEST(MarianTokenizer, AMarianFolderWithoutItsFilesHasNoTokenizer) {
    // model_type says marian, but nothing Marian reads is there: no tokenizer, as for any folder
    // without tokenizer files (the caller says so), rather than an error about vocab.json.
    ScratchDir dir;
    EXPECT_EQ(loadTokenizer(dir.path(), "marian"), nullptr);
    EXPECT_EQ(loadTargetTokenizer(dir.path(), "marian"), nullptr);
}

TEST(MarianTokenizer, OtherModelsHaveNoSeparateTarget) {
    ATTNSCOPE_SKIP_WITHOUT(kAlbert);
    EXPECT_EQ(loadTargetTokenizer(kAlbert, "albert"), nullptr);
    EXPECT_EQ(loadTargetTokenizer(kSharedTokenizers / "bert-base-uncased", "bert"), nullptr);
}

TEST(T5Spiece, SentinelsAreAppendedAndEatSpaces) {
    ATTNSCOPE_SKIP_WITHOUT(kT5);
    const auto tok = loadSpmConventionTokenizer(kT5, "t5");
    ASSERT_NE(tok, nullptr);
    EXPECT_EQ(tok->vocabSize(), 32100u);
    EXPECT_EQ(tok->tokenToId("<extra_id_0>"), 32099);
    EXPECT_EQ(tok->tokenToId("<extra_id_99>"), 32000);
    EXPECT_EQ(tok->idToToken(32099), "<extra_id_0>");
    const auto tokens = tok->encode("Hello <extra_id_0> world");
    ASSERT_EQ(tokens.size(), 4u);  // ▁Hello <extra_id_0> ▁world </s>
    EXPECT_EQ(tokens[1].id, 32099);
    EXPECT_EQ(tokens[1].charBegin, 6u);
    EXPECT_EQ(tokens[1].charEnd, 18u);
    EXPECT_EQ(ids(tok->encode("Hello<extra_id_0>world")), ids(tokens));
}

TEST(T5Spiece, NoSecondEosAfterATextEndingInOne) {
    ATTNSCOPE_SKIP_WITHOUT(kT5);
    const auto tok = loadSpmConventionTokenizer(kT5, "t5");
    const auto withEos = ids(tok->encode("Hello</s>"));
    const auto plain = ids(tok->encode("Hello"));
    EXPECT_EQ(withEos, plain);
    EXPECT_EQ(ids(tok->encode("Hello", false)).size() + 1, plain.size());
}

TEST(AlbertSpiece, ClsSepLowercaseAndTheMaskEatsTheSpaceBefore) {
    ATTNSCOPE_SKIP_WITHOUT(kAlbert);
    const auto tok = loadTokenizer(kAlbert, "");  // tokenizer_class AlbertTokenizer
    ASSERT_NE(tok, nullptr);
    EXPECT_EQ(tok->vocabSize(), 30000u);
    const auto tokens = tok->encode("Hello [MASK]");
    ASSERT_EQ(tokens.size(), 4u);
    EXPECT_EQ(tokens.front().id, 2);  // [CLS]
    EXPECT_EQ(tokens.back().id, 3);   // [SEP]
    EXPECT_EQ(tokens[1].text, "\xE2\x96\x81hello");
    EXPECT_EQ(tokens[2].id, 4);  // [MASK], no '▁' before it: lstrip took the space
    EXPECT_EQ(tok->specialId(SpecialRole::Mask), 4);
}

TEST(AlbertSpiece, ADigitCommaPieceIsSplitAgain) {
    ATTNSCOPE_SKIP_WITHOUT(kAlbert);
    const auto tok = loadTokenizer(kAlbert, "albert");
    const auto tokens = tok->encode("12,345");
    // "▁12," would be one piece; AlbertTokenizer re-encodes "12" and puts ',' after it.
    ASSERT_GE(tokens.size(), 5u);
    const Token& comma = tokens[tokens.size() - 3];
    EXPECT_EQ(comma.text, ",");
    EXPECT_EQ(comma.charBegin, 2u);
    EXPECT_EQ(comma.charEnd, 3u);
    EXPECT_EQ(tokens[1].charBegin, 0u);
}

}  // namespace
}  // namespace attnscope::tokenize
