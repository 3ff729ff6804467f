// decodeIds (detokenize.h): ids back to text with each tokenizer kind's decoder. Byte-level BPE
// and the SentencePiece family round-trip real sentences exactly; WordPiece joins "##" pieces.
#include "attnscope/tokenize/detokenize.h"

#include <fstream>

#include <gtest/gtest.h>

#include "../support/shared_data.h"

namespace attnscope::tokenize {
namespace {

namespace fs = std::filesystem;
using testing::kSharedTokenizers;

// The first `count` "# text = " sentences of UD English EWT dev.
std::vector<std::string> sentences(std::size_t count) {
    std::ifstream in(fs::path(ATTNSCOPE_SHARED_DIR) /
                     "data/ud/UD_English-EWT/en_ewt-ud-dev.conllu");
    std::vector<std::string> out;
    for (std::string line; out.size() < count && std::getline(in, line);) {
        if (line.starts_with("# text = ")) {
            out.push_back(line.substr(9));
        }
    }
    return out;
}

void expectRoundTrip(const Tokenizer& t, const std::string& name) {
    const auto texts = sentences(300);
    ASSERT_EQ(texts.size(), 300u);
    for (const std::string& text : texts) {
        EXPECT_EQ(decodeIds(t, ids(t.encode(text))), text) << name;
    }
}

TEST(Detokenize, ByteLevelRoundTripsRealSentences) {
    ATTNSCOPE_SKIP_WITHOUT(kSharedTokenizers / "gpt2");
    const auto t = loadTokenizerJson(kSharedTokenizers / "gpt2" / "tokenizer.json");
    expectRoundTrip(*t, "gpt2");
    EXPECT_EQ(decodeIds(*t, ids(t->encode("naïve — café 🙂"))), "naïve — café 🙂");
    // RoBERTa's <s> and </s> are special and left out.
    const auto roberta = loadTokenizerJson(kSharedTokenizers / "roberta-base" / "tokenizer.json");
    EXPECT_EQ(decodeIds(*roberta, ids(roberta->encode("Hello world"))), "Hello world");
}

TEST(Detokenize, SentencePieceFamilyRoundTripsRealSentences) {
    ATTNSCOPE_SKIP_WITHOUT(kSharedTokenizers / "llama-2");
    const auto t = loadTokenizerJson(kSharedTokenizers / "llama-2" / "tokenizer.json");
    expectRoundTrip(*t, "llama-2");
    // Byte fallback: a character outside the vocabulary comes back from its <0xNN> pieces.
    EXPECT_EQ(decodeIds(*t, ids(t->encode("𒀀 ok"))), "𒀀 ok");
}

TEST(Detokenize, WordPieceJoinsContinuations) {
    ATTNSCOPE_SKIP_WITHOUT(kSharedTokenizers / "bert-base-uncased");
    const auto t = loadTokenizerJson(kSharedTokenizers / "bert-base-uncased" / "tokenizer.json");
    EXPECT_EQ(decodeIds(*t, ids(t->encode("The unaffable keys"))), "the unaffable keys");
    EXPECT_EQ(decodeIds(*t, {999999}), "<id 999999>");
}

TEST(Detokenize, CutByteSequencesBecomeReplacementCharacters) {
    ATTNSCOPE_SKIP_WITHOUT(kSharedTokenizers / "gpt2");
    const auto t = loadTokenizerJson(kSharedTokenizers / "gpt2" / "tokenizer.json");
    std::vector<std::int32_t> smile = ids(t->encode("🙂"));
    ASSERT_GT(smile.size(), 1u);
    smile.pop_back();  // the emoji's last byte missing
    const std::string text = decodeIds(*t, smile);
    EXPECT_NE(text.find("\xEF\xBF\xBD"), std::string::npos) << text;
}

}  // namespace
}  // namespace attnscope::tokenize
