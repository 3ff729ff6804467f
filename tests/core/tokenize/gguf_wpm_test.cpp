// "bert" GGUF vocabularies (llama.cpp's WPM tokenizer, issue 32): bert-base-uncased's vocab.txt
// rewritten as llama.cpp's converter stores it ('▁' word starts, no "##") gives llama.cpp's ids,
// Hugging Face's ids and spans on ordinary text, and reads back in WordPiece's spelling; the
// tokenizer.ggml.* keys of a file and the refusals.
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "../support/gguf_builder.h"
#include "../support/shared_data.h"
#include "../support/test_files.h"
#include "attnscope/base/error.h"
#include "attnscope/tokenize/detokenize.h"
#include "attnscope/tokenize/gguf_vocab.h"
#include "model/gguf/gguf_tokenizer.h"

namespace attnscope::tokenize {
namespace {

namespace fs = std::filesystem;
using testing::GgufBuilder;

const fs::path kBertUncased = testing::kSharedTokenizers / "bert-base-uncased";
const std::string kPhantom = "\u2581";
constexpr std::int32_t kNormal = 1;
constexpr std::int32_t kControl = 3;

bool isBertSpecial(const std::string& t) {
    return t == "[PAD]" || t == "[UNK]" || t == "[CLS]" || t == "[SEP]" || t == "[MASK]";
}

// vocab.txt as BertModel.set_vocab stores it, with the special ids a converted bge-small file
// names (none for BOS: llama.cpp's default 101 is [CLS]).
GgufVocab convertedVocab(const fs::path& vocabTxt) {
    GgufVocab v;
    v.source = "bert.gguf";
    v.model = "bert";
    v.pre = "bert-bge";
    std::ifstream in(vocabTxt);
    for (std::string line; std::getline(in, line);) {
        const bool special = isBertSpecial(line);
        v.tokenTypes.push_back(special ? kControl : kNormal);
        if (special) {
            v.tokens.push_back(line);
        } else if (line.starts_with("##")) {
            v.tokens.push_back(line.substr(2));
        } else {
            v.tokens.push_back(kPhantom + line);
        }
    }
    v.unkId = 100;
    v.sepId = 102;
    v.padId = 0;
    v.maskId = 103;
    return v;
}

struct LlamaCppCase {
    std::string text;
    std::vector<std::int32_t> ids;
};

// llama.cpp's ids, with [CLS] and [SEP] and special tokens parsed in the text: node-llama-cpp
// 3.21.1 (tests/peer/llama_cpp/llama_peer.mjs tokenize --special) on llama.cpp's own
// models/ggml-vocab-bert-bge.gguf, whose tokens are these (it also keeps "[unusedN]" without
// '▁', which no text here reaches). Each case is a rule where llama.cpp parts from Hugging Face
// or one they share.
std::vector<LlamaCppCase> llamaCppCases() {
    std::vector<std::int32_t> longWord = {101, 13360};
    longWord.insert(longWord.end(), 53, 11057);
    longWord.insert(longWord.end(), {2050, 2203, 102});
    return {
        {"Hello world, it's 2019!", {101, 7592, 2088, 1010, 2009, 1005, 1055, 10476, 999, 102}},
        // A Hangul syllable becomes its leading jamo (the first code point of its NFD).
        {"\uD55C\uAD6D\uC5B4 \uD14D\uC2A4\uD2B8",
         {101, 1469, 29991, 29999, 1467, 29997, 30003, 102}},
        // Every mark is dropped, the spacing (Mc) vowel signs too.
        {"\u0939\u093F\u0928\u094D\u0926\u0940", {101, 1339, 29863, 29861, 102}},
        // \v, \f and U+0085 are White_Space: they split words.
        {"a\vb c\fd e\u0085f", {101, 1037, 1038, 1039, 1040, 1041, 1042, 102}},
        {"\u0130stanbul", {101, 9960, 102}},
        // No 100-character limit on a word.
        {std::string(110, 'a') + " end", longWord},
        {"[CLS] hello [MASK] world [SEP]", {101, 101, 7592, 103, 2088, 102, 102}},
        // A '▁' inside a word starts word-start tokens there.
        {"a\u2581b \u2581c", {101, 1037, 1038, 100, 102}},
        {"\u01D5ber na\u00EFve caf\u00E9", {101, 19169, 15743, 7668, 102}},
        {"\u65E5\u672C\u8A9E\u30C6\u30AD\u30B9\u30C8",
         {101, 1864, 1876, 1950, 1713, 30227, 30233, 30240, 102}},
        {"x\u200By", {101, 1060, 2100, 102}},
        {"UNAFFABLE unaffable", {101, 14477, 20961, 3468, 14477, 20961, 3468, 102}},
        {"", {101, 102}},
        {"   ", {101, 102}},
    };
}

class GgufWpm : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::exists(kBertUncased / "vocab.txt")) {
            GTEST_SKIP() << "shared data not found at " << kBertUncased.string();
        }
        m_tokenizer = loadGgufTokenizer(convertedVocab(kBertUncased / "vocab.txt"));
    }

    std::unique_ptr<Tokenizer> m_tokenizer;
};

TEST_F(GgufWpm, GivesLlamaCppsIds) {
    for (const LlamaCppCase& c : llamaCppCases()) {
        EXPECT_EQ(ids(m_tokenizer->encode(c.text)), c.ids) << "\"" << c.text << "\"";
    }
}

// Where the rules agree, ids and spans are Hugging Face's (AttnScope's own WordPiece of the
// same vocabulary, itself checked against Hugging Face's).
TEST_F(GgufWpm, MatchesHuggingFaceOnOrdinaryText) {
    const auto hf = loadTokenizer(kBertUncased, "bert");
    ASSERT_NE(hf, nullptr);
    for (const std::string text :
         {"The quick brown fox jumps over the lazy dog.", "Héllo, WÖRLD! (tokenization) 12,345.67",
          "don't stop--believing; it's \"quoted\" [MASK] here", "naïve café résumé Ångström",
          "中文字符 and 日本語", "  leading and   inner   spaces\tand\ttabs\n"}) {
        const std::vector<Token> a = m_tokenizer->encode(text);
        const std::vector<Token> b = hf->encode(text);
        ASSERT_EQ(ids(a), ids(b)) << text;
        for (std::size_t i = 0; i < a.size(); ++i) {
            EXPECT_EQ(a[i].text, b[i].text) << text << ", token " << i;
            EXPECT_EQ(a[i].byteBegin, b[i].byteBegin) << text << ", token " << i;
            EXPECT_EQ(a[i].byteEnd, b[i].byteEnd) << text << ", token " << i;
            EXPECT_EQ(a[i].charBegin, b[i].charBegin) << text << ", token " << i;
            EXPECT_EQ(a[i].charEnd, b[i].charEnd) << text << ", token " << i;
            EXPECT_EQ(a[i].special, b[i].special) << text << ", token " << i;
        }
    }
}

TEST_F(GgufWpm, ReadsBackInWordPieceSpelling) {
    const Tokenizer& t = *m_tokenizer;
    EXPECT_EQ(t.kind(), TokenizerKind::WordPiece);
    EXPECT_EQ(t.vocabSize(), 30522u);
    EXPECT_EQ(t.idToToken(101), "[CLS]");
    EXPECT_EQ(t.idToToken(1), "[unused0]");
    EXPECT_EQ(t.idToToken(2009), "it");
    EXPECT_EQ(t.tokenToId("##ing"), 2075);
    EXPECT_EQ(t.tokenToId("\u2581it"), std::nullopt);
    EXPECT_EQ(t.specialId(SpecialRole::Cls), 101);
    EXPECT_EQ(t.specialId(SpecialRole::Sep), 102);
    EXPECT_EQ(t.specialId(SpecialRole::Unk), 100);
    EXPECT_EQ(t.specialId(SpecialRole::Pad), 0);
    EXPECT_EQ(t.specialId(SpecialRole::Mask), 103);
    EXPECT_EQ(t.specialId(SpecialRole::Eos), std::nullopt);
    EXPECT_NE(t.describe().find("WordPiece (30522 tokens, llama.cpp's WPM rules) from bert.gguf"),
              std::string::npos);
    const std::vector<Token> tokens = t.encode("unaffable", false);
    ASSERT_EQ(tokens.size(), 3u);
    EXPECT_EQ(tokens[0].text, "una");
    EXPECT_EQ(tokens[1].text, "##ffa");
    EXPECT_EQ(decodeIds(t, ids(t.encode("unaffable words, [MASK]!"))), "unaffable words , !");
}

TEST_F(GgufWpm, OlderConvertersKeptBracketedTokens) {
    GgufVocab v = convertedVocab(kBertUncased / "vocab.txt");
    v.tokens[1] = "[unused0]";  // llama.cpp's ggml-vocab-bert-bge.gguf, type normal
    const auto t = loadGgufTokenizer(v);
    EXPECT_EQ(t->idToToken(1), "[unused0]");
    EXPECT_EQ(t->tokenToId("[unused0]"), 1);
}

// ---- tiny vocabularies: options, keys and refusals ----------------------------------------

GgufVocab tinyVocab() {
    GgufVocab v;
    v.source = "tiny.gguf";
    v.model = "bert";
    v.tokens = {"[PAD]",
                "[UNK]",
                "[CLS]",
                "[SEP]",
                "[MASK]",
                kPhantom + "hello",
                kPhantom + "Hello",
                kPhantom + "caf",
                "\u00E9",
                "e",
                kPhantom + ","};
    v.tokenTypes = {kControl, kControl, kControl, kControl, kControl, kNormal,
                    kNormal,  kNormal,  kNormal,  kNormal,  kNormal};
    v.bosId = 2;
    v.sepId = 3;
    v.unkId = 1;
    return v;
}

TEST(GgufWpmOptions, LowercaseAndStripAccentsFollowTheKeys) {
    GgufVocab v = tinyVocab();
    EXPECT_EQ(ids(loadGgufTokenizer(v)->encode("Hello café", false)),
              (std::vector<std::int32_t>{5, 7, 9}));
    v.lowercase = false;  // strip_accents follows lowercase unless given
    EXPECT_EQ(ids(loadGgufTokenizer(v)->encode("Hello café", false)),
              (std::vector<std::int32_t>{6, 7, 8}));
    v.stripAccents = true;
    EXPECT_EQ(ids(loadGgufTokenizer(v)->encode("Hello café", false)),
              (std::vector<std::int32_t>{6, 7, 9}));
    EXPECT_EQ(ids(loadGgufTokenizer(v)->encode("hello,Hello")),
              (std::vector<std::int32_t>{2, 5, 10, 6, 3}));
}

TEST(GgufWpmOptions, RefusalsNameTheKey) {
    GgufVocab v = tinyVocab();
    v.bosId.reset();  // the default, 101, is beyond these 11 tokens
    testing::expectError<FormatError>(
        [&] { loadGgufTokenizer(v); },
        {"tiny.gguf: key 'tokenizer.ggml.bos_token_id'", "missing", "[CLS]"});
    v = tinyVocab();
    v.unkId.reset();
    const auto noUnk = loadGgufTokenizer(v);
    EXPECT_EQ(ids(noUnk->encode("hello", false)), (std::vector<std::int32_t>{5}));
    testing::expectError<FormatError>([&] { noUnk->encode("zzz", false); },
                                      {"tiny.gguf", "unknown_token_id", "no unknown token"});
    v = tinyVocab();
    v.tokens.push_back("##" + std::string("e"));  // reads back as "####e"; no clash
    v.tokenTypes.push_back(kNormal);
    v.tokens.push_back("[SEP]x");
    v.tokenTypes.push_back(kNormal);
    EXPECT_NO_THROW(loadGgufTokenizer(v));
    v.tokens.back() = kPhantom + "[SEP]";  // "[SEP]" twice once '▁' is undone
    testing::expectError<FormatError>([&] { loadGgufTokenizer(v); },
                                      {"tiny.gguf", "tokens 3 and 12", "\"[SEP]\""});
}

std::string i32s(const std::vector<std::int32_t>& values) {
    std::string v = GgufBuilder::raw<std::uint32_t>(GgufBuilder::I32) +
                    GgufBuilder::raw<std::uint64_t>(values.size());
    for (const std::int32_t x : values) {
        v += GgufBuilder::raw(x);
    }
    return v;
}

TEST(GgufWpmFile, ReadsTheKeysOfAFile) {
    const GgufVocab tiny = tinyVocab();
    GgufBuilder b;
    b.text("general.architecture", "bert")
        .text("tokenizer.ggml.model", "bert")
        .text("tokenizer.ggml.pre", "jina-v2-en")  // ignored, as llama.cpp ignores it here
        .strings("tokenizer.ggml.tokens", tiny.tokens)
        .kv("tokenizer.ggml.token_type", GgufBuilder::Array, i32s(tiny.tokenTypes))
        .u32("tokenizer.ggml.bos_token_id", 2)
        .u32("tokenizer.ggml.seperator_token_id", 3)
        .u32("tokenizer.ggml.unknown_token_id", 1)
        .u32("tokenizer.ggml.mask_token_id", 4)
        .kv("tokenizer.ggml.normalizer.lowercase", GgufBuilder::Bool,
            GgufBuilder::raw<std::uint8_t>(0));
    const testing::ScratchFile path("bert.gguf");
    testing::writeFile(path, b.bytes());
    const io::GgufFile file(path);
    const GgufVocab v = model::readGgufVocab(file);
    EXPECT_EQ(v.maskId, 4u);
    EXPECT_EQ(v.lowercase, false);
    EXPECT_FALSE(v.stripAccents.has_value());
    const auto t = model::loadGgufTokenizer(file);
    EXPECT_EQ(t->specialId(SpecialRole::Mask), 4);
    EXPECT_EQ(ids(t->encode("Hello [MASK]")), (std::vector<std::int32_t>{2, 6, 4, 3}));
}

}  // namespace
}  // namespace attnscope::tokenize
