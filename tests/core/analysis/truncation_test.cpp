// fittingPrefix (truncation.h): the longest prefix cut at a token end whose encoding, special
// tokens included, fits the model's positions. Real tokenizers: BERT's WordPiece with [CLS] …
// [SEP] around the text (from ../shared) and a byte-level BPE without specials (always here).
#include "attnscope/analysis/truncation.h"

#include <filesystem>

#include <gtest/gtest.h>

namespace attnscope::analysis {
namespace {

namespace fs = std::filesystem;

const fs::path kBert =
    fs::path(ATTNSCOPE_SHARED_DIR) / "data" / "tokenizers" / "bert-base-uncased" / "tokenizer.json";
const fs::path kTinyLlama3 =
    fs::path(ATTNSCOPE_TEST_DATA_DIR) / "tokenize" / "tiny_llama3" / "tokenizer.json";

const std::string kText =
    "The keys to the cabinet are on the table, and the unbelievably long corridor leads to a "
    "staircase that nobody has climbed since the early nineteen-hundreds.";

// The prefix fits, one more token of the text would not, and it is cut at a token end.
void expectLongestFit(const tokenize::Tokenizer& tok, const std::string& text, std::size_t max) {
    const std::string prefix = fittingPrefix(tok, text, max);
    ASSERT_LT(prefix.size(), text.size());
    ASSERT_EQ(text.compare(0, prefix.size(), prefix), 0);
    EXPECT_LE(tok.encode(prefix).size(), max) << prefix;
    bool atTokenEnd = prefix.empty();
    std::size_t next = text.size();  // the end of the first token past the prefix
    for (const tokenize::Token& t : tok.encode(text)) {
        atTokenEnd = atTokenEnd || t.byteEnd == prefix.size();
        if (t.byteEnd > prefix.size() && t.byteEnd < next) {
            next = t.byteEnd;
        }
    }
    EXPECT_TRUE(atTokenEnd) << prefix;
    EXPECT_GT(tok.encode(std::string_view(text).substr(0, next)).size(), max)
        << "a longer prefix would fit: " << text.substr(0, next);
}

TEST(FittingPrefix, BertKeepsClsAndSepAndCutsBetweenWordPieces) {
    if (!fs::exists(kBert)) {
        GTEST_SKIP() << "no BERT tokenizer at " << kBert << " (../shared absent)";
    }
    const auto tok = tokenize::loadTokenizerJson(kBert);
    const std::size_t all = tok->encode(kText).size();
    for (std::size_t max = 3; max < all; max += 3) {
        SCOPED_TRACE(max);
        expectLongestFit(*tok, kText, max);
        const auto tokens = tok->encode(fittingPrefix(*tok, kText, max));
        EXPECT_EQ(tokens.front().text, "[CLS]");
        EXPECT_EQ(tokens.back().text, "[SEP]");
    }
    EXPECT_EQ(fittingPrefix(*tok, kText, all), kText);  // fits: unchanged
    EXPECT_EQ(fittingPrefix(*tok, kText, 2), "");       // only [CLS] [SEP] would fit
}

TEST(FittingPrefix, ByteLevelBpe) {
    const auto tok = tokenize::loadTokenizerJson(kTinyLlama3);
    const std::size_t all = tok->encode(kText).size();
    ASSERT_GT(all, 4U);
    for (std::size_t max = 1; max < all; ++max) {
        SCOPED_TRACE(max);
        expectLongestFit(*tok, kText, max);
    }
    EXPECT_EQ(fittingPrefix(*tok, kText, 0), "");
}

}  // namespace
}  // namespace attnscope::analysis
