// The slow SentencePiece tokenizers' loaders and rules (slow_spm_tokenizer.h, issue 20): broken
// Marian vocab.json files and truncated .spm / spiece.model files are FormatErrors naming the
// file and place; each convention's special tokens, language codes, sentinels and re-splits on
// the real files of ../shared (skipped without it). Every sentence of the treebanks is checked
// against the reference in spm_parity_test.cpp.
#include <filesystem>
#include <initializer_list>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "../support/shared_data.h"
#include "../support/test_files.h"
#include "attnscope/base/error.h"
#include "attnscope/tokenize/tokenizer.h"

namespace attnscope::tokenize {
namespace {

namespace fs = std::filesystem;
using attnscope::testing::expectError;
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

// `dir` holding the files `files` (name, bytes).
fs::path folderWith(const ScratchDir& dir,
                    std::initializer_list<std::pair<const char*, std::string>> files) {
    for (const auto& [name, bytes] : files) {
        writeFile(dir.path() / name, bytes);
    }
    return dir.path();
}

// The first 1/`parts` of `file`: a truncated model file.
std::string firstPart(const fs::path& file, std::size_t parts) {
    const std::string bytes = readFile(file);
    return bytes.substr(0, bytes.size() / parts);
}

// A Marian folder whose vocab.json is `vocabJson`; the .spm files are never reached, the
// vocabulary being read first.
fs::path marianWithVocab(const ScratchDir& dir, const std::string& vocabJson) {
    return folderWith(
        dir,
        {{"source.spm", "not reached"}, {"target.spm", "not reached"}, {"vocab.json", vocabJson}});
}

// A broken vocab.json and what its FormatError must say: the file, the JSON path, the reason.
struct BrokenVocab {
    std::string name;
    std::string vocabJson;
    std::vector<std::string> fragments;
};

void PrintTo(const BrokenVocab& c, std::ostream* os) {
    *os << c.name;
}

std::vector<BrokenVocab> brokenVocabs() {
    return {
        {"AStringIdNamesThePiece",
         R"({"</s>": 0, "<unk>": "1"})",
         {"vocab.json: $.<unk>", "\"1\""}},
        {"ANegativeIdIsRefused", R"({"</s>": 0, "<unk>": -1})", {"vocab.json: $.<unk>"}},
        {"AnIdOf2To31IsRefused", R"({"</s>": 0, "<unk>": 2147483648})", {"vocab.json: $.<unk>"}},
        {"AnIdPastThePiecesIsOutOfRange",
         R"({"</s>": 0, "<unk>": 7})",
         {"vocab.json: $.<unk>: id 7 is out of range: the file has 2 pieces"}},
        // nlohmann::json keeps an object's keys sorted: <pad> comes first.
        {"ARepeatedIdNamesBothPieces",
         R"({"</s>": 0, "<unk>": 1, "<pad>": 1})",
         {"vocab.json: $.<unk>: id 1 is also the id of \"<pad>\""}},
        {"NotAnObjectIsRefused", R"(["</s>", "<unk>"])", {"vocab.json: $: expected an object"}},
        {"TheUnknownTokenMustBeThere",
         R"({"</s>": 0, "a": 1})",
         {"vocab.json: the unk_token \"<unk>\" is not in the vocabulary"}},
    };
}

class MarianVocabJson : public ::testing::TestWithParam<BrokenVocab> {};

TEST_P(MarianVocabJson, IsAFormatErrorNamingThePlace) {
    ScratchDir dir;
    const std::string e = formatError(marianWithVocab(dir, GetParam().vocabJson));
    for (const std::string& fragment : GetParam().fragments) {
        EXPECT_NE(e.find(fragment), std::string::npos) << e;
    }
}

INSTANTIATE_TEST_SUITE_P(Broken, MarianVocabJson, ::testing::ValuesIn(brokenVocabs()),
                         [](const ::testing::TestParamInfo<BrokenVocab>& param) {
                             return param.param.name;
                         });

TEST(SentencePieceFiles, ATruncatedSourceSpmNamesTheFile) {
    ATTNSCOPE_SKIP_WITHOUT(kMarian);
    ScratchDir dir;
    const std::string e =
        formatError(folderWith(dir, {{"source.spm", firstPart(kMarian / "source.spm", 3)},
                                     {"target.spm", readFile(kMarian / "target.spm")},
                                     {"vocab.json", readFile(kMarian / "vocab.json")}}));
    EXPECT_NE(e.find("source.spm: not a readable SentencePiece model"), std::string::npos) << e;
}

TEST(SentencePieceFiles, ATruncatedSpieceModelNamesTheFile) {
    ATTNSCOPE_SKIP_WITHOUT(kAlbert);
    ScratchDir dir;
    folderWith(dir, {{"spiece.model", firstPart(kAlbert / "spiece.model", 2)},
                     {"tokenizer_config.json", readFile(kAlbert / "tokenizer_config.json")}});
    expectError<FormatError>([&] { loadTokenizer(dir.path(), ""); },
                             {"spiece.model: not a readable SentencePiece model"});
}

TEST(SentencePieceFiles, SpieceModelOfAnUnknownClassIsUnsupported) {
    ATTNSCOPE_SKIP_WITHOUT(kAlbert);
    ScratchDir dir;
    folderWith(dir, {{"spiece.model", readFile(kAlbert / "spiece.model")},
                     {"tokenizer_config.json", R"({"tokenizer_class": "XLNetTokenizer"})"}});
    EXPECT_THROW(loadTokenizer(dir.path(), ""), UnsupportedModel);
}

TEST(SentencePieceFiles, T5WithLegacyFalseIsUnsupported) {
    ATTNSCOPE_SKIP_WITHOUT(kT5);
    ScratchDir dir;
    folderWith(
        dir, {{"spiece.model", readFile(kT5 / "spiece.model")},
              {"tokenizer_config.json", R"({"tokenizer_class": "T5Tokenizer", "legacy": false})"}});
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
    folderWith(dir, {{"source.spm", readFile(kMarian / "source.spm")},
                     {"vocab.json", readFile(kMarian / "vocab.json")}});
    ASSERT_NE(loadTokenizer(dir.path(), "marian"), nullptr);
    expectError<FormatError>([&] { loadTargetTokenizer(dir.path(), "marian"); },
                             {"target.spm: cannot open"});
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
