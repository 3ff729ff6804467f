// The loader API of tokenizer.h: which files win, what tokenizer_config.json and config.json
// change, special roles, vocabulary queries, and concurrent use.
#include "attnscope/tokenize/tokenizer.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "../support/expect_error.h"
#include "../support/shared_data.h"
#include "attnscope/base/error.h"
#include "on_threads.h"

namespace attnscope::tokenize {
namespace {

namespace fs = std::filesystem;

const fs::path kData = ATTNSCOPE_TOKENIZE_DATA_DIR;

// A scratch model folder, removed at the end of the test.
class ModelDir {
public:
    explicit ModelDir(const std::string& name)
        : m_path(fs::temp_directory_path() /
                 ("attnscope_tokenize_test_" + std::to_string(::getpid()) + "_" + name)) {
        fs::remove_all(m_path);
        fs::create_directories(m_path);
    }

    ~ModelDir() { fs::remove_all(m_path); }

    ModelDir(const ModelDir&) = delete;
    ModelDir& operator=(const ModelDir&) = delete;

    const fs::path& path() const { return m_path; }

    void copy(const fs::path& from, const std::string& as) const {
        fs::copy_file(from, m_path / as);
    }

    void write(const std::string& name, const std::string& text) const {
        std::ofstream(m_path / name, std::ios::binary) << text;
    }

private:
    fs::path m_path;
};

std::vector<std::string> pieces(const Tokenizer& tok, std::string_view text) {
    std::vector<std::string> out;
    for (const Token& t : tok.encode(text)) {
        out.push_back(t.text);
    }
    return out;
}

TEST(LoadTokenizer, EmptyFolderGivesNull) {
    const ModelDir dir("empty");
    EXPECT_EQ(loadTokenizer(dir.path(), "bert"), nullptr);
    EXPECT_EQ(loadTokenizerFromVocabFiles(dir.path(), "gpt2"), nullptr);
}

TEST(LoadTokenizer, TokenizerJsonWinsOverVocabTxt) {
    const std::unique_ptr<Tokenizer> tok = loadTokenizer(kData / "tiny_bert", "bert");
    ASSERT_NE(tok, nullptr);
    EXPECT_EQ(tok->kind(), TokenizerKind::WordPiece);
    EXPECT_NE(tok->describe().find("tokenizer.json"), std::string::npos) << tok->describe();
    const auto fromVocab = loadTokenizerFromVocabFiles(kData / "tiny_bert", "bert");
    EXPECT_NE(fromVocab->describe().find("vocab.txt"), std::string::npos);
    EXPECT_EQ(ids(tok->encode("Café [MASK] don't")), ids(fromVocab->encode("Café [MASK] don't")));
}

TEST(LoadTokenizer, VocabularyQueriesAndRoles) {
    const auto tok = loadTokenizer(kData / "tiny_bert", "bert");
    EXPECT_EQ(tok->vocabSize(), 43u);
    EXPECT_EQ(tok->tokenToId("[MASK]"), 4);
    EXPECT_EQ(tok->tokenToId("nope"), std::nullopt);
    EXPECT_EQ(tok->idToToken(5), "the");
    EXPECT_EQ(tok->idToToken(9999), "");
    EXPECT_EQ(tok->specialId(SpecialRole::Cls), 2);
    EXPECT_EQ(tok->specialId(SpecialRole::Sep), 3);
    EXPECT_EQ(tok->specialId(SpecialRole::Pad), 0);
    EXPECT_EQ(tok->specialId(SpecialRole::Mask), 4);
    EXPECT_EQ(tok->specialId(SpecialRole::Unk), 1);
    EXPECT_EQ(tok->specialId(SpecialRole::Bos), std::nullopt);
    EXPECT_EQ(ids(tok->encode("the", false)), (std::vector<std::int32_t>{5}));
}

TEST(LoadTokenizer, ByteLevelStyleFromModelTypeOrVocabulary) {
    const fs::path files = kData / "tiny_bytelevel";
    const auto roberta = loadTokenizer(files, "");  // has <s> and </s>: RoBERTa style
    ASSERT_NE(roberta, nullptr);
    EXPECT_EQ(roberta->kind(), TokenizerKind::ByteLevelBpe);
    EXPECT_EQ(pieces(*roberta, "hello"),
              (std::vector<std::string>{"<s>", "he", "ll", "o", "</s>"}));
    const auto gpt2 = loadTokenizer(files, "gpt2");
    EXPECT_EQ(pieces(*gpt2, "hello"), (std::vector<std::string>{"he", "ll", "o"}));

    const ModelDir dir("config_model_type");
    dir.copy(files / "vocab.json", "vocab.json");
    dir.copy(files / "merges.txt", "merges.txt");
    dir.write("config.json", R"({"model_type": "gpt2"})");
    EXPECT_EQ(pieces(*loadTokenizer(dir.path(), ""), "hello"),
              (std::vector<std::string>{"he", "ll", "o"}));
}

TEST(LoadTokenizer, TokenizerConfigSetsPrefixSpaceAndRoles) {
    const ModelDir dir("gpt2_config");
    dir.copy(kData / "tiny_bytelevel" / "vocab.json", "vocab.json");
    dir.copy(kData / "tiny_bytelevel" / "merges.txt", "merges.txt");
    dir.write("tokenizer_config.json",
              R"({"add_prefix_space": true, "bos_token": "<|endoftext|>",
                  "eos_token": {"content": "<|endoftext|>", "lstrip": false}})");
    const auto tok = loadTokenizer(dir.path(), "gpt2");
    const std::vector<Token> tokens = tok->encode("hello");
    ASSERT_EQ(tokens.size(), 4u);
    EXPECT_EQ(tokens[0].text, "Ġ");  // the added prefix space, spanning the 'h' it precedes
    EXPECT_EQ(tokens[0].charEnd, 1u);
    EXPECT_EQ(tok->specialId(SpecialRole::Bos), tok->tokenToId("<|endoftext|>"));
    EXPECT_EQ(tok->specialId(SpecialRole::Eos), tok->tokenToId("<|endoftext|>"));
}

TEST(LoadTokenizer, LowerCasingFollowsConfigThenFolderName) {
    const ModelDir cased("tiny-cased");
    cased.copy(kData / "tiny_bert" / "vocab.txt", "vocab.txt");
    EXPECT_EQ(pieces(*loadTokenizer(cased.path(), "bert"), "Hello"),
              (std::vector<std::string>{"[CLS]", "[UNK]", "[SEP]"}));
    cased.write("tokenizer_config.json", R"({"do_lower_case": true})");
    EXPECT_EQ(pieces(*loadTokenizer(cased.path(), "bert"), "Hello"),
              (std::vector<std::string>{"[CLS]", "hello", "[SEP]"}));
    const ModelDir uncased("tiny-uncased");
    uncased.copy(kData / "tiny_bert" / "vocab.txt", "vocab.txt");
    EXPECT_EQ(pieces(*loadTokenizer(uncased.path(), "bert"), "Hello"),
              (std::vector<std::string>{"[CLS]", "hello", "[SEP]"}));
}

TEST(LoadTokenizer, BadConfigNamesStageAndFile) {
    const ModelDir dir("bad_config");
    dir.copy(kData / "tiny_bert" / "vocab.txt", "vocab.txt");
    dir.write("tokenizer_config.json", R"({"do_lower_case": "yes"})");
    const std::string what =
        testing::errorMessage<FormatError>([&] { loadTokenizer(dir.path(), "bert"); });
    EXPECT_EQ(what.rfind("loading tokenizer: ", 0), 0u) << what;
    EXPECT_NE(what.find(R"(tokenizer_config.json: $.do_lower_case: expected true or false, )"
                        R"(found "yes")"),
              std::string::npos)
        << what;
}

// Issue 5: Llama 2 / TinyLlama. The real files live in shared/data/tokenizers.
using testing::kSharedTokenizers;

TEST(LoadTokenizer, TokenizerModelWhenThereIsNoTokenizerJson) {
    ATTNSCOPE_SKIP_WITHOUT(kSharedTokenizers);
    const auto tok = loadTokenizer(kSharedTokenizers / "TinyLlama-1.1B-Chat-v1.0", "llama");
    ASSERT_NE(tok, nullptr);
    EXPECT_EQ(tok->kind(), TokenizerKind::SentencePiece);
    EXPECT_NE(tok->describe().find("SentencePiece"), std::string::npos) << tok->describe();
    EXPECT_NE(tok->describe().find("tokenizer.model"), std::string::npos) << tok->describe();
    EXPECT_EQ(tok->vocabSize(), 32000u);
    EXPECT_EQ(pieces(*tok, "Hello world"), (std::vector<std::string>{"<s>", "▁Hello", "▁world"}));
    EXPECT_EQ(tok->specialId(SpecialRole::Bos), 1);
    EXPECT_EQ(tok->specialId(SpecialRole::Eos), 2);
    EXPECT_EQ(tok->specialId(SpecialRole::Unk), 0);
    EXPECT_EQ(tok->idToToken(13), "<0x0A>");
}

TEST(LoadTokenizer, Llama2TokenizerJsonIsBpeWithByteFallback) {
    ATTNSCOPE_SKIP_WITHOUT(kSharedTokenizers);
    const auto tok = loadTokenizer(kSharedTokenizers / "llama-2", "llama");
    ASSERT_NE(tok, nullptr);
    EXPECT_EQ(tok->kind(), TokenizerKind::Bpe);
    EXPECT_NE(tok->describe().find("byte fallback"), std::string::npos) << tok->describe();
    const std::vector<Token> tokens = tok->encode("a\nb");
    EXPECT_EQ(ids(tokens), (std::vector<std::int32_t>{1, 263, 13, 29890}));
    EXPECT_EQ(tokens[1].charBegin, 0u);  // "▁a": the prepended '▁' shares the span of 'a'
    EXPECT_EQ(tokens[1].charEnd, 1u);
    // The same ids through libsentencepiece.
    EXPECT_EQ(ids(loadSentencePieceTokenizer(kSharedTokenizers / "llama-2")->encode("a\nb")),
              ids(tokens));
}

TEST(LoadTokenizer, LlamaBosAndEosFollowTokenizerConfig) {
    ATTNSCOPE_SKIP_WITHOUT(kSharedTokenizers);
    const ModelDir model("llama_model_eos");
    model.copy(kSharedTokenizers / "llama-2" / "tokenizer.model", "tokenizer.model");
    model.write("tokenizer_config.json", R"({"add_bos_token": false, "add_eos_token": true})");
    EXPECT_EQ(pieces(*loadTokenizer(model.path(), "llama"), "Hi"),
              (std::vector<std::string>{"▁Hi", "</s>"}));
    // tokenizer.json: LlamaTokenizerFast rebuilds the template from the same flags.
    const ModelDir json("llama_json_eos");
    json.copy(kSharedTokenizers / "llama-2" / "tokenizer.json", "tokenizer.json");
    json.write("tokenizer_config.json",
               R"({"tokenizer_class": "LlamaTokenizerFast", "add_eos_token": true,
                   "bos_token": "<s>", "eos_token": "</s>"})");
    EXPECT_EQ(pieces(*loadTokenizer(json.path(), "llama"), "Hi"),
              (std::vector<std::string>{"<s>", "▁Hi", "</s>"}));
    // Another tokenizer class keeps the post-processor of tokenizer.json.
    json.write("tokenizer_config.json",
               R"({"tokenizer_class": "PreTrainedTokenizerFast", "add_eos_token": true})");
    EXPECT_EQ(pieces(*loadTokenizer(json.path(), "llama"), "Hi"),
              (std::vector<std::string>{"<s>", "▁Hi"}));
}

TEST(LoadTokenizer, CorruptTokenizerModelNamesFileAndReason) {
    const ModelDir dir("corrupt_model");
    dir.write("tokenizer.model", "this is not a protobuf\n");
    const std::string what =
        testing::errorMessage<FormatError>([&] { loadTokenizer(dir.path(), "llama"); });
    EXPECT_EQ(what.rfind("loading tokenizer: ", 0), 0u) << what;
    EXPECT_NE(what.find((dir.path() / "tokenizer.model").string()), std::string::npos) << what;
    EXPECT_NE(what.find("not a readable SentencePiece model"), std::string::npos) << what;
    if (fs::exists(kSharedTokenizers)) {  // a truncated real model fails the same way
        std::ifstream in(kSharedTokenizers / "llama-2" / "tokenizer.model", std::ios::binary);
        std::string head(4096, '\0');
        in.read(head.data(), static_cast<std::streamsize>(head.size()));
        dir.write("tokenizer.model", head);
        EXPECT_THROW(loadTokenizer(dir.path(), "llama"), FormatError);
    }
}

TEST(Tokenizer, EncodeIsSafeFromSeveralThreads) {
    const auto tok = loadTokenizerJson(kData / "tiny_bytelevel" / "roberta_tokenizer.json");
    std::vector<std::string> texts;
    for (int i = 0; i < 200; ++i) {
        texts.push_back("hello world's café " + std::to_string(i * 7919) + " <mask> the " +
                        std::string(static_cast<std::size_t>(i % 5), ' ') + "tell");
    }
    std::vector<std::vector<std::int32_t>> expected;
    for (const std::string& t : texts) {
        expected.push_back(ids(tok->encode(t)));
    }
    const std::vector<int> ok = checkOnThreads(4, [&](std::size_t k) {
        bool same = true;
        for (std::size_t i = 0; i < texts.size(); ++i) {
            same = same && ids(tok->encode(texts[(i + k * 50) % texts.size()])) ==
                               expected[(i + k * 50) % texts.size()];
        }
        return same;
    });
    EXPECT_EQ(ok, (std::vector<int>{1, 1, 1, 1}));
}

}  // namespace
}  // namespace attnscope::tokenize
