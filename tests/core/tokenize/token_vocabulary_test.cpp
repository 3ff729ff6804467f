// loadTokenVocabulary (token_vocabulary.h): the pieces and special tokens of a folder's tokenizer
// files, read without building the tokenizer, so token ids can be labelled even where the
// tokenizer cannot run (a tokenizer.json with a part AttnScope does not implement). Issue 13.
#include "attnscope/tokenize/token_vocabulary.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "../support/shared_data.h"
#include "../support/test_files.h"
#include "../support/test_names.h"
#include "attnscope/base/error.h"
#include "attnscope/tokenize/tokenizer.h"

namespace attnscope::tokenize {
namespace {

namespace fs = std::filesystem;

using testing::kSharedTokenizers;

// A WordLevel tokenizer.json as the `tokenizers` library writes one (ChemTSv3's SMILES GPT-2
// uses this layout), whose unk_token is not in its vocabulary. AttnScope runs WordLevel models
// since issue 20; the vocabulary read alone must say the same.
constexpr const char* kWordLevelJson = R"({
  "version": "1.0",
  "added_tokens": [
    {"id": 3, "content": "<BOS>", "single_word": false, "lstrip": false, "rstrip": false,
     "normalized": false, "special": true},
    {"id": 4, "content": "<EOS>", "single_word": false, "lstrip": false, "rstrip": false,
     "normalized": false, "special": true}
  ],
  "normalizer": null,
  "pre_tokenizer": {"type": "Sequence", "pretokenizers": []},
  "post_processor": {
    "type": "TemplateProcessing",
    "single": [{"SpecialToken": {"id": "<BOS>", "type_id": 0}},
               {"Sequence": {"id": "A", "type_id": 0}},
               {"SpecialToken": {"id": "<EOS>", "type_id": 0}}],
    "pair": [],
    "special_tokens": {
      "<BOS>": {"id": "<BOS>", "ids": [3], "tokens": ["<BOS>"]},
      "<EOS>": {"id": "<EOS>", "ids": [4], "tokens": ["<EOS>"]}
    }
  },
  "decoder": null,
  "model": {"type": "WordLevel", "vocab": {"C": 0, "O": 1, "(": 2, "<BOS>": 3, "<EOS>": 4,
                                           "<PAD>": 5}, "unk_token": "<unk>"}
})";

TEST(TokenVocabulary, WordLevelTokenizerJsonGivesPiecesAndRoles) {
    const testing::ScratchDir dir;
    testing::writeFile(dir.path() / "tokenizer.json", kWordLevelJson);
    testing::writeFile(dir.path() / "tokenizer_config.json",
                       R"({"pad_token": "<PAD>", "bos_token": "<BOS>"})");
    const auto tokenizer = loadTokenizer(dir.path(), "gpt2");
    ASSERT_NE(tokenizer, nullptr);
    EXPECT_EQ(tokenizer->kind(), TokenizerKind::WordLevel);
    EXPECT_EQ(ids(tokenizer->encode("C")), (std::vector<std::int32_t>{3, 0, 4}));
    const auto vocab = loadTokenVocabulary(dir.path());
    ASSERT_NE(vocab, nullptr);
    EXPECT_EQ(vocab->vocabSize(), 6u);
    EXPECT_EQ(vocab->idToToken(0), "C");
    EXPECT_EQ(vocab->idToToken(2), "(");
    EXPECT_EQ(vocab->idToToken(4), "<EOS>");
    EXPECT_EQ(vocab->idToToken(6), "");
    EXPECT_EQ(vocab->tokenToId("O"), 1);
    EXPECT_EQ(vocab->specialId(SpecialRole::Cls), 3);  // the post-processor's first token
    EXPECT_EQ(vocab->specialId(SpecialRole::Sep), 4);
    EXPECT_EQ(vocab->specialId(SpecialRole::Bos), 3);  // tokenizer_config.json
    EXPECT_EQ(vocab->specialId(SpecialRole::Pad), 5);
    EXPECT_EQ(vocab->specialId(SpecialRole::Mask), std::nullopt);
}

TEST(TokenVocabulary, UnigramListGivesIdsByPosition) {
    const testing::ScratchDir dir;
    testing::writeFile(dir.path() / "tokenizer.json",
                       R"({"added_tokens": [], "post_processor": {"type": "Unknown"},
        "model": {"type": "Unigram", "unk_id": 2,
                  "vocab": [["<pad>", 0.0], ["</s>", 0.0], ["<unk>", 0.0], ["▁the", -3.1]]}})");
    const auto vocab = loadTokenVocabulary(dir.path());
    ASSERT_NE(vocab, nullptr);
    EXPECT_EQ(vocab->idToToken(3), "▁the");
    EXPECT_EQ(vocab->specialId(SpecialRole::Eos), 1);
    EXPECT_EQ(vocab->specialId(SpecialRole::Pad), 0);
    EXPECT_EQ(vocab->specialId(SpecialRole::Unk), 2);
}

TEST(TokenVocabulary, NoFilesGivesNullAndBrokenFilesNameThemselves) {
    const testing::ScratchDir dir;
    EXPECT_EQ(loadTokenVocabulary(dir.path()), nullptr);
    testing::writeFile(dir.path() / "tokenizer.json",
                       R"({"model": {"type": "WordLevel", "vocab": {"a": "zero"}}})");
    try {
        loadTokenVocabulary(dir.path());
        FAIL() << "a string id was accepted";
    } catch (const FormatError& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind("reading vocabulary: ", 0), 0u) << what;
        // Issue 15: one JSON access layer for every JSON file, which quotes the offending value.
        std::string expected = (dir.path() / "tokenizer.json").string();
        expected += R"(: $.model.vocab.a: expected an integer from 0 to 2147483647, found "zero")";
        EXPECT_NE(what.find(expected), std::string::npos) << what;
    }
}

TEST(TokenVocabulary, RealWordLevelAndUnigramFiles) {
    ATTNSCOPE_SKIP_WITHOUT(kSharedTokenizers);
    const auto smiles = loadTokenVocabulary(kSharedTokenizers / "chemtsv3-gpt2_0.2m-smiles");
    ASSERT_NE(smiles, nullptr);
    EXPECT_EQ(smiles->vocabSize(), 66u);
    EXPECT_EQ(smiles->idToToken(17), "C");
    EXPECT_EQ(smiles->idToToken(25), "[C@@H]");
    EXPECT_EQ(smiles->specialId(SpecialRole::Bos), 13);
    EXPECT_EQ(smiles->specialId(SpecialRole::Eos), 14);
    EXPECT_EQ(smiles->specialId(SpecialRole::Pad), 64);
    const auto t5 = loadTokenVocabulary(kSharedTokenizers / "t5-small");
    ASSERT_NE(t5, nullptr);
    EXPECT_EQ(t5->idToToken(1), "</s>");
    EXPECT_EQ(t5->specialId(SpecialRole::Sep), 1);
}

// Where the tokenizer does load, the vocabulary read alone must mean the same by every id.
class SameAsTokenizer : public ::testing::TestWithParam<std::string> {};

TEST_P(SameAsTokenizer, EveryIdAndRole) {
    ATTNSCOPE_SKIP_WITHOUT(kSharedTokenizers);
    const fs::path dir = kSharedTokenizers / GetParam();
    const auto tokenizer = loadTokenizer(dir, "");
    const auto vocab = loadTokenVocabulary(dir);
    ASSERT_NE(tokenizer, nullptr);
    ASSERT_NE(vocab, nullptr);
    EXPECT_EQ(vocab->vocabSize(), tokenizer->vocabSize()) << GetParam();
    for (std::int32_t id = 0; id < static_cast<std::int32_t>(tokenizer->vocabSize()) + 5; ++id) {
        ASSERT_EQ(vocab->idToToken(id), tokenizer->idToToken(id)) << GetParam() << " id " << id;
    }
    for (const SpecialRole role :
         {SpecialRole::Cls, SpecialRole::Sep, SpecialRole::Bos, SpecialRole::Eos, SpecialRole::Pad,
          SpecialRole::Mask, SpecialRole::Unk}) {
        EXPECT_EQ(vocab->specialId(role), tokenizer->specialId(role))
            << GetParam() << " role " << static_cast<int>(role);
    }
}

INSTANTIATE_TEST_SUITE_P(Shared, SameAsTokenizer,
                         ::testing::Values("bert-base-uncased", "gpt2", "roberta-base", "bart-base",
                                           "distilbert-base-uncased", "llama-2",
                                           "TinyLlama-1.1B-Chat-v1.0", "t5-small",
                                           "chemtsv3-gpt2_0.2m-smiles"),
                         testing::paramName);

// The vocabulary of a folder holding only `file` of the shared tokenizer folder `name`; it is
// read whole, so the folder may go.
std::unique_ptr<const TokenVocabulary> vocabularyOfOnly(const std::string& name,
                                                        const std::string& file) {
    const testing::ScratchDir dir;
    fs::copy_file(kSharedTokenizers / name / file, dir.path() / file);
    return loadTokenVocabulary(dir.path());
}

TEST(TokenVocabulary, VocabTxtAndVocabJsonAlone) {
    ATTNSCOPE_SKIP_WITHOUT(kSharedTokenizers);
    const auto wordPiece = vocabularyOfOnly("bert-base-uncased", "vocab.txt");
    ASSERT_NE(wordPiece, nullptr);
    EXPECT_EQ(wordPiece->idToToken(7592), "hello");
    EXPECT_EQ(wordPiece->specialId(SpecialRole::Mask), 103);
    const auto bpe = vocabularyOfOnly("gpt2", "vocab.json");
    ASSERT_NE(bpe, nullptr);
    EXPECT_EQ(bpe->idToToken(995), "Ġworld");
    EXPECT_EQ(bpe->specialId(SpecialRole::Eos), 50256);
}

}  // namespace
}  // namespace attnscope::tokenize
