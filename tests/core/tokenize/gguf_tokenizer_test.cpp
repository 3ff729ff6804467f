// Tokenizers from GGUF vocabulary metadata (issue 32): llama.cpp's own vocabulary test files,
// every string of every supported one with llama.cpp's ids, and tiny hand-made vocabularies for
// the conventions one at a time (byte fallback, special tokens in the text, BOS, errors).
#include "model/gguf/gguf_tokenizer.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "../support/gguf_builder.h"
#include "../support/shared_data.h"
#include "../support/test_files.h"
#include "attnscope/base/error.h"
#include "attnscope/tokenize/gguf_vocab.h"
#include "attnscope/tokenize/pre_tokenizer.h"
#include "llama_cpp_vocab_test.h"

namespace attnscope::tokenize {
namespace {

namespace fs = std::filesystem;

const fs::path kVocabDir = testing::kSharedTokenizers / "llama.cpp-vocab";

// The files of kVocabDir checked here, each against every string of its .inp. llama-bpe and
// qwen2 (../shared has their .inp/.out but not the .gguf) are checked with llama.cpp's .gguf from
// the peer's source bundle in gguf_bundled_vocab_test.cpp; gpt-neox (a .gguf without .inp/.out)
// only below.
const std::vector<std::string> kSupportedVocabs = {
    "llama-spm", "phi-3",        "gpt-2",          "mpt", "falcon", "starcoder",
    "refact",    "deepseek-llm", "deepseek-coder",
};

class LlamaCppVocab : public ::testing::TestWithParam<std::string> {};

TEST_P(LlamaCppVocab, EveryTestStringGivesLlamaCppsIds) {
    ATTNSCOPE_SKIP_WITHOUT(kVocabDir);
    const fs::path gguf = kVocabDir / ("ggml-vocab-" + GetParam() + ".gguf");
    expectLlamaCppIds(gguf, gguf, GetParam());
}

std::string vocabTestName(const ::testing::TestParamInfo<std::string>& param) {
    std::string name = param.param;
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

INSTANTIATE_TEST_SUITE_P(SharedFiles, LlamaCppVocab, ::testing::ValuesIn(kSupportedVocabs),
                         vocabTestName);

TEST(GgufVocabFiles, BosRolesAndDefaults) {
    ATTNSCOPE_SKIP_WITHOUT(kVocabDir);
    const io::GgufFile file(kVocabDir / "ggml-vocab-llama-spm.gguf");
    const auto t = model::loadGgufTokenizer(file);
    EXPECT_EQ(ids(t->encode("Hello world")), (std::vector<std::int32_t>{1, 15043, 3186}));
    EXPECT_EQ(t->specialId(SpecialRole::Bos), 1);
    EXPECT_EQ(t->specialId(SpecialRole::Eos), 2);
    EXPECT_EQ(t->specialId(SpecialRole::Unk), 0);
    EXPECT_EQ(t->vocabSize(), 32000u);
    // Control tokens in the text are tokens (llama.cpp with parse_special on).
    EXPECT_EQ(ids(t->encode("<s>Hello</s>", false)), (std::vector<std::int32_t>{1, 15043, 2}));

    const io::GgufFile gpt2(kVocabDir / "ggml-vocab-gpt-2.gguf");
    const auto g = model::loadGgufTokenizer(gpt2);
    EXPECT_EQ(ids(g->encode("Hello world")), (std::vector<std::int32_t>{15496, 995}));
    EXPECT_EQ(ids(g->encode("a<|endoftext|>")), (std::vector<std::int32_t>{64, 50256}));

    // No tokenizer.ggml.pre: llama.cpp's "default" regexes; ids as Hugging Face's GPT-NeoX.
    const io::GgufFile neox(kVocabDir / "ggml-vocab-gpt-neox.gguf");
    EXPECT_EQ(ids(model::loadGgufTokenizer(neox)->encode("Hello world")),
              (std::vector<std::int32_t>{12092, 1533}));
}

// ---- tiny hand-made vocabularies --------------------------------------------------------

const std::string kSpace = "\xE2\x96\x81";  // '▁'

// A "llama" vocabulary: <unk> <s> </s>, the 256 byte tokens, then `pieces` with falling scores.
GgufVocab spmVocab(const std::vector<std::string>& pieces) {
    GgufVocab v;
    v.source = "tiny.gguf";
    v.model = "llama";
    v.tokens = {"<unk>", "<s>", "</s>"};
    v.tokenTypes = {2, 3, 3};
    v.scores = {0.0f, 0.0f, 0.0f};
    static const char* kHex = "0123456789ABCDEF";
    for (int b = 0; b < 256; ++b) {
        v.tokens.push_back(std::string("<0x") + kHex[b >> 4] + kHex[b & 15] + ">");
        v.tokenTypes.push_back(6);
        v.scores.push_back(0.0f);
    }
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        v.tokens.push_back(pieces[i]);
        v.tokenTypes.push_back(1);
        v.scores.push_back(-static_cast<float>(i));
    }
    return v;
}

constexpr std::int32_t kFirstPiece = 259;  // the id of spmVocab's first piece

TEST(GgufVocabSpm, MergesByScoreAndFallsBackToBytes) {
    // "é" is not a piece: its two UTF-8 bytes become <0xC3> <0xA9> (ids 3 + byte).
    const auto t = loadGgufTokenizer(spmVocab({kSpace, "a", "b", kSpace + "a", "ab"}));
    EXPECT_EQ(ids(t->encode("ab", false)),
              (std::vector<std::int32_t>{kFirstPiece + 3, kFirstPiece + 2}));  // ▁a b
    EXPECT_EQ(ids(t->encode("a\xC3\xA9", false)),
              (std::vector<std::int32_t>{kFirstPiece + 3, 3 + 0xC3, 3 + 0xA9}));
    EXPECT_EQ(t->kind(), TokenizerKind::Bpe);
}

TEST(GgufVocabSpm, EqualScoresMergeLeftmostFirst) {
    // llama.cpp grows the leftmost run: ▁▁▁▁ -> ▁▁▁ ▁, not ▁▁ ▁▁ (all three scored alike).
    GgufVocab v = spmVocab({kSpace, kSpace + kSpace, kSpace + kSpace + kSpace});
    std::fill(v.scores.end() - 2, v.scores.end(), -5.0f);
    const auto t = loadGgufTokenizer(v);
    EXPECT_EQ(ids(t->encode("   ", false)),
              (std::vector<std::int32_t>{kFirstPiece + 2, kFirstPiece}));
}

TEST(GgufVocabSpm, ControlTokensInTheTextAndTheSpacePrefix) {
    // Each stretch of text after a special token gets its own '▁', as llama.cpp prefixes every
    // raw fragment; add_space_prefix off drops it.
    GgufVocab v = spmVocab({kSpace, "a", kSpace + "a"});
    const auto t = loadGgufTokenizer(v);
    const std::vector<std::int32_t> expected = {kFirstPiece + 2, 1, kFirstPiece + 2, 2};
    EXPECT_EQ(ids(t->encode("a<s>a</s>", false)), expected);
    v.addSpacePrefix = false;
    EXPECT_EQ(ids(loadGgufTokenizer(v)->encode("a<s>a", false)),
              (std::vector<std::int32_t>{kFirstPiece + 1, 1, kFirstPiece + 1}));
}

TEST(GgufVocabSpm, Phi3StripsWhitespaceAfterItsSpecialTokens) {
    GgufVocab v = spmVocab({kSpace, "a", kSpace + "a", "<|user|>"});
    v.tokenTypes.back() = 3;
    v.modelName = "Phi3";
    EXPECT_EQ(ids(loadGgufTokenizer(v)->encode("<|user|>\n a", false)),
              (std::vector<std::int32_t>{kFirstPiece + 3, kFirstPiece + 2}));
}

TEST(GgufVocabSpm, AddsBosUnlessTheFileSaysNot) {
    GgufVocab v = spmVocab({kSpace, "a", kSpace + "a"});
    EXPECT_EQ(ids(loadGgufTokenizer(v)->encode("a")),
              (std::vector<std::int32_t>{1, kFirstPiece + 2}));
    v.addBos = false;
    v.addEos = true;
    v.eosId = 2;
    EXPECT_EQ(ids(loadGgufTokenizer(v)->encode("a")),
              (std::vector<std::int32_t>{kFirstPiece + 2, 2}));
}

// A "gpt2" vocabulary: every byte's stand-in character, then "Ġa" ("Ġ" is ' ') and a control
// token.
GgufVocab bpeVocab() {
    GgufVocab v;
    v.source = "tiny.gguf";
    v.model = "gpt2";
    v.pre = "gpt-2";
    for (int b = 0; b < 256; ++b) {
        v.tokens.push_back(byteLevelString(std::string(1, static_cast<char>(b))));
    }
    v.tokens.push_back(
        "\xC4\xA0"
        "a");                             // 256: "Ġa"
    v.tokens.push_back("<|endoftext|>");  // 257
    v.tokenTypes.assign(v.tokens.size(), 1);
    v.tokenTypes.back() = 3;
    v.merges = {"\xC4\xA0 a"};
    return v;
}

TEST(GgufVocabBpe, SplitsMergesAndMatchesControlTokens) {
    GgufVocab v = bpeVocab();
    const auto t = loadGgufTokenizer(v);
    EXPECT_EQ(ids(t->encode("a a<|endoftext|>")), (std::vector<std::int32_t>{'a', 256, 257}));
    EXPECT_EQ(t->kind(), TokenizerKind::ByteLevelBpe);
    v.addBos = true;
    v.bosId = 257;
    EXPECT_EQ(ids(loadGgufTokenizer(v)->encode("a")), (std::vector<std::int32_t>{257, 'a'}));
}

TEST(GgufVocabBpe, AVocabularyWithoutSomeLeadBytesStillLoads) {
    // 0xED leads U+D000-D7FF; the surrogates after them are no characters, and no class of
    // PCRE2's may name them (this vocabulary was refused before).
    GgufVocab v = bpeVocab();
    for (const int b : {0x01, 0xC3, 0xED, 0xF0}) {
        v.tokens[static_cast<std::size_t>(b)] = "<unused" + std::to_string(b) + ">";
    }
    const auto t = loadGgufTokenizer(v);
    EXPECT_EQ(ids(t->encode("a a")), (std::vector<std::int32_t>{'a', 256}));
    // A missing byte gives no token (llama.cpp drops a symbol it has no token for); the
    // continuation bytes after it keep theirs, and nothing merges across it.
    EXPECT_EQ(ids(t->encode("a\xED\x9F\xBF a\xC3\xA9")),
              (std::vector<std::int32_t>{'a', 0x9F, 0xBF, 256, 0xA9}));
}

TEST(GgufVocabBpe, EndOfGenerationTokensAreControlWhateverTheirType) {
    // llama.cpp makes "<｜end▁of▁sentence｜>" and the like control tokens by their text.
    GgufVocab v = bpeVocab();
    v.tokens.push_back("<\uFF5Cend\u2581of\u2581sentence\uFF5C>");  // 258, typed normal
    v.tokenTypes.push_back(1);
    EXPECT_EQ(ids(loadGgufTokenizer(v)->encode("a<\uFF5Cend\u2581of\u2581sentence\uFF5C>")),
              (std::vector<std::int32_t>{'a', 258}));
}

TEST(GgufVocabBpe, Llama3PreAddsBosByDefault) {
    GgufVocab v = bpeVocab();
    v.pre = "llama-bpe";
    v.bosId = 257;
    EXPECT_EQ(ids(loadGgufTokenizer(v)->encode(" a")), (std::vector<std::int32_t>{257, 256}));
}

// ---- refusals -----------------------------------------------------------------------------

TEST(GgufVocabErrors, UnknownModelIsNamed) {
    GgufVocab v = spmVocab({"a"});
    v.model = "t5";
    testing::expectError<UnsupportedModel>(
        [&] { loadGgufTokenizer(v); },
        {"tiny.gguf", "tokenizer.ggml.model", "\"t5\"", "llama", "gpt2", "bert"});
}

TEST(GgufVocabErrors, UnknownPreIsNamed) {
    GgufVocab v = bpeVocab();
    v.pre = "tekken";
    testing::expectError<UnsupportedModel>(
        [&] { loadGgufTokenizer(v); },
        {"tiny.gguf: key 'tokenizer.ggml.pre'", "\"tekken\"", "llama-bpe", "qwen2"});
}

TEST(GgufVocabErrors, ArraysMustMatchTheTokens) {
    GgufVocab v = spmVocab({"a"});
    v.scores.pop_back();
    EXPECT_EQ(testing::errorMessage<FormatError>([&] { loadGgufTokenizer(v); }),
              "tiny.gguf: key 'tokenizer.ggml.scores': 259 entries for the 260 tokens of "
              "tokenizer.ggml.tokens");
    v = spmVocab({"a"});
    v.tokenTypes.push_back(1);
    testing::expectError<FormatError>([&] { loadGgufTokenizer(v); },
                                      {"key 'tokenizer.ggml.token_type'", "261 entries"});
}

TEST(GgufVocabErrors, BadTokensMergesAndIds) {
    GgufVocab v = spmVocab({"a", "a"});
    testing::expectError<FormatError>(
        [&] { loadGgufTokenizer(v); },
        {"tiny.gguf: key 'tokenizer.ggml.tokens'", "\"a\" is both token 259 and token 260"});
    v = bpeVocab();
    v.merges.push_back("a q");
    v.tokens[static_cast<unsigned char>('q')] = "<q>";
    testing::expectError<FormatError>([&] { loadGgufTokenizer(v); },
                                      {"key 'tokenizer.ggml.merges'", "entry 1 \"a q\""});
    v = bpeVocab();
    v.addBos = true;
    v.bosId = 9999;
    v.tokens.resize(11);  // gpt2's default BOS, 11, is out of range too
    v.tokenTypes.resize(11);
    v.merges = {"a b"};
    v.tokens[1] = "a";
    v.tokens[2] = "b";
    v.tokens[3] = "ab";
    testing::expectError<FormatError>([&] { loadGgufTokenizer(v); },
                                      {"key 'tokenizer.ggml.bos_token_id'",
                                       "9999 is not an id of the 11 tokens", "add_bos_token"});
}

// ---- reading the keys from a file -----------------------------------------------------------

using testing::GgufBuilder;

std::string numbers(GgufBuilder::Type type, const std::vector<std::string>& raw) {
    std::string v =
        GgufBuilder::raw<std::uint32_t>(type) + GgufBuilder::raw<std::uint64_t>(raw.size());
    for (const std::string& r : raw) {
        v += r;
    }
    return v;
}

TEST(GgufVocabFile, ReadsTheKeysAndRefusesWrongTypes) {
    const std::vector<std::string> tokens = {"<unk>", "<s>", "</s>", kSpace, "a", kSpace + "a"};
    std::vector<std::string> scores;
    std::vector<std::string> types;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        scores.push_back(GgufBuilder::raw(-static_cast<float>(i)));
        types.push_back(GgufBuilder::raw<std::int32_t>(i == 0 ? 2 : i < 3 ? 3 : 1));
    }
    GgufBuilder b;
    b.text("general.architecture", "llama")
        .text("tokenizer.ggml.model", "llama")
        .strings("tokenizer.ggml.tokens", tokens)
        .kv("tokenizer.ggml.scores", GgufBuilder::Array, numbers(GgufBuilder::F32, scores))
        .kv("tokenizer.ggml.token_type", GgufBuilder::Array, numbers(GgufBuilder::I32, types))
        .u32("tokenizer.ggml.bos_token_id", 1)
        .kv("tokenizer.ggml.add_space_prefix", GgufBuilder::Bool,
            GgufBuilder::raw<std::uint8_t>(1));
    const testing::ScratchFile path("vocab.gguf");
    testing::writeFile(path, b.bytes());
    const io::GgufFile file(path);
    const GgufVocab v = model::readGgufVocab(file);
    EXPECT_EQ(v.source, path.path().string());
    EXPECT_EQ(v.tokens, tokens);
    EXPECT_EQ(v.scores.back(), -5.0f);
    EXPECT_EQ(v.tokenTypes.front(), 2);
    EXPECT_EQ(v.bosId, 1u);
    EXPECT_EQ(v.addSpacePrefix, true);
    EXPECT_FALSE(v.addBos.has_value());
    EXPECT_EQ(ids(model::loadGgufTokenizer(file)->encode("a a")),
              (std::vector<std::int32_t>{1, 5, 5}));

    const testing::ScratchFile bad("bad.gguf");
    testing::writeFile(bad, GgufBuilder().u32("tokenizer.ggml.model", 3).bytes());
    testing::expectError<FormatError>(
        [&] { model::readGgufVocab(io::GgufFile(bad)); },
        {"bad.gguf", "key 'tokenizer.ggml.model'", "expected a string"});
}

}  // namespace
}  // namespace attnscope::tokenize
