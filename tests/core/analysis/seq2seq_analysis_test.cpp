// The encoder-decoder analysis (analysis/seq2seq_analysis.h): teacher forcing's shift, the three
// kinds' tokens and statistics, greedy decoding (each token is the argmax the teacher-forced
// pass gives at its row: the LM logits themselves are checked against PyTorch in
// seq2seq_parity_test), and word-level cross-attention for the alignment view.
#include "attnscope/analysis/seq2seq_analysis.h"

#include <filesystem>
#include <limits>

#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "../support/test_names.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/prediction.h"
#include "attnscope/model/model.h"
#include "attnscope/tokenize/detokenize.h"

namespace attnscope::analysis {
namespace {

namespace fs = std::filesystem;
using forward::AttentionKind;
using testing::expectError;

const fs::path kRoot = fs::path(ATTNSCOPE_FIXTURE_DIR) / "seq2seq";

std::shared_ptr<const model::Model> load(const std::string& name) {
    model::LoadOptions options;
    options.tokenizer = model::TokenizerLoading::VocabularyOnly;
    return model::loadModel(kRoot / name, options);
}

TEST(Seq2SeqAnalysis, DecoderReadsTheStartTokenAndTheTargetShiftedRight) {
    const auto m = load("bart_f32");
    const std::vector<std::int32_t> source = {0, 10, 11, 12, 2};
    const std::vector<std::int32_t> target = {0, 20, 21, 2};
    const Seq2SeqAnalysis a = analyzeSeq2SeqIds(*m, source, target);
    EXPECT_EQ(a.decoder.forward.tokenIds, (std::vector<std::int32_t>{2, 0, 20, 21}));
    EXPECT_EQ(a.targetTokens.size(), target.size());
    EXPECT_EQ(a.encoder.forward.tokenIds, source);
    EXPECT_EQ(a.cross.forward.tokenIds, a.decoder.forward.tokenIds);
    EXPECT_EQ(a.cross.forward.keyIds(), source);
    EXPECT_EQ(a.cross.keyCount(), 5);
    EXPECT_EQ(a.cross.keyTokens.size(), 5u);
    EXPECT_EQ(a.of(AttentionKind::Cross).forward.nKeys, 5);
    EXPECT_EQ(a.cross.stats.size(),
              static_cast<std::size_t>(m->decoder->spec.nLayers * m->decoder->spec.nHeads));
    EXPECT_EQ(a.encoder.stats.size(), static_cast<std::size_t>(m->spec.nLayers * m->spec.nHeads));
    // Causal decoder, unmasked cross-attention; each row of every map sums to 1.
    EXPECT_FALSE(a.decoder.forward.allowed(0, 1));
    EXPECT_TRUE(a.cross.forward.allowed.all());
    for (const AttentionKind kind :
         {AttentionKind::Encoder, AttentionKind::Decoder, AttentionKind::Cross}) {
        const auto& r = a.of(kind).forward;
        const Matrix map = r.attention({r.nLayers - 1, r.nHeads - 1});
        EXPECT_LT((map.rowwise().sum().array() - 1.0f).abs().maxCoeff(), 1e-5f);
    }
    EXPECT_EQ(a.targetLabel(3), "→ " + tokenLabel(a.targetTokens[3].text));
    EXPECT_EQ(a.targetLabel(4), "→ ?");
}

TEST(Seq2SeqAnalysis, EmptyTargetRunsTheStartTokenAlone) {
    const auto m = load("t5_v10_f32");
    const Seq2SeqAnalysis a = analyzeSeq2SeqIds(*m, {5, 6, 1}, {});
    EXPECT_EQ(a.decoder.forward.tokenIds, (std::vector<std::int32_t>{0}));
    EXPECT_TRUE(a.targetTokens.empty());
    expectError<InvalidArgument>([&] { crossAlignment(a, 0); }, {"no target"});
}

TEST(Seq2SeqAnalysis, RefusesModelsWithoutADecoder) {
    const auto m = model::loadModel(fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints" / "bert_f32");
    expectError<InvalidArgument>(
        [&] {
            analyzeSeq2SeqIds(*m, {1, 2}, {3});
        },
        {"not an encoder-decoder"});
    expectError<InvalidArgument>([&] { greedyTarget(*m, {1, 2}); }, {"not an encoder-decoder"});
}

// The argmax of the teacher-forced pass's LM logits at `row`, pad excluded (as greedyTarget).
std::int32_t argmaxAt(const model::Model& m, const Seq2SeqAnalysis& a, int row) {
    const Matrix logits = forward::vocabularyLogits(m, a.decoder.forward.hidden.row(row));
    std::int32_t best = -1;
    float bestLogit = -std::numeric_limits<float>::infinity();
    for (Eigen::Index j = 0; j < logits.cols(); ++j) {
        if (j != m.decoder->spec.padTokenId.value_or(-1) && logits(0, j) > bestLogit) {
            best = static_cast<std::int32_t>(j);
            bestLogit = logits(0, j);
        }
    }
    return best;
}

class GreedyDecoding : public ::testing::TestWithParam<std::string> {};

TEST_P(GreedyDecoding, EachTokenIsTheTeacherForcedArgmax) {
    const auto m = load(GetParam());
    const std::vector<std::int32_t> source = {7, 8, 9, 10, 11, m->decoder->spec.eosTokenId.value()};
    std::vector<std::vector<std::int32_t>> steps;
    GreedyOptions options;
    options.maxTokens = 9;
    options.onToken = [&](const std::vector<std::int32_t>& t) { steps.push_back(t); };
    const std::vector<std::int32_t> target = greedyTarget(*m, source, options);
    ASSERT_FALSE(target.empty());
    ASSERT_LE(target.size(), 9u);
    EXPECT_EQ(steps.size(), target.size());
    EXPECT_EQ(steps.back(), target);
    // It stops at the end token, or at the limit.
    const auto eos = *m->decoder->spec.eosTokenId;
    EXPECT_TRUE(target.size() == 9u || target.back() == eos);
    EXPECT_EQ(std::count(target.begin(), target.end() - 1, eos), 0);
    const Seq2SeqAnalysis forced = analyzeSeq2SeqIds(*m, source, target);
    for (int t = 0; t < static_cast<int>(target.size()); ++t) {
        EXPECT_EQ(argmaxAt(*m, forced, t), target[static_cast<std::size_t>(t)]) << "row " << t;
    }
}

TEST_P(GreedyDecoding, Cancels) {
    const auto m = load(GetParam());
    GreedyOptions options;
    options.onToken = [&](const std::vector<std::int32_t>&) { options.cancel.cancel(); };
    EXPECT_THROW(greedyTarget(*m, {7, 8, 9}, options), Cancelled);
}

INSTANTIATE_TEST_SUITE_P(Checkpoints, GreedyDecoding,
                         ::testing::Values("t5_v10_f32", "bart_f32", "marian_f32"),
                         testing::paramName);

TEST(Seq2SeqAnalysis, GreedyNeedsAnLmHead) {
    const auto m = load("t5_model_f16");
    expectError<InvalidArgument>([&] { greedyTarget(*m, {3, 4, 1}); }, {"no LM head"});
}

// Translate's target (issue 30): the ids as decoded, not the decoded text re-tokenized, which
// here merges the one-character pieces and adds <s> (as T5's [6992 x 8] came back as
// [3, 6992 x 8, 1]). Each token spans the bytes it adds to the text; a piece holding half of
// "é" spans nothing and the next piece the whole character.
TEST(Seq2SeqAnalysis, DecodedTargetKeepsItsIds) {
    const auto m = model::loadModel(kRoot / "bart_tok_f32");
    const tokenize::Tokenizer& t = *m->targetTextTokenizer();
    std::vector<std::int32_t> ids;
    for (const char* piece : {"h", "e", "a", "d", "s", "Ġ", "c", "a", "f", "Ã", "©"}) {
        ids.push_back(t.tokenToId(piece).value());
    }
    ids.push_back(m->decoder->spec.eosTokenId.value());
    const std::string text = "heads café";
    ASSERT_EQ(tokenize::decodeIds(t, ids), text);
    ASSERT_NE(tokenize::ids(t.encode(text)), ids);  // what the old path analysed
    const Seq2SeqAnalysis a = analyzeSeq2SeqDecoded(*m, "The keys to it", ids);
    EXPECT_EQ(tokenize::ids(a.targetTokens), ids);
    EXPECT_EQ(a.targetText, text);
    EXPECT_EQ(a.encoder.text, "The keys to it");
    EXPECT_EQ(a.encoder.tokens.front().text, "<s>");  // the source tokenized as typed text
    // The same pass as the ids run alone.
    const Seq2SeqAnalysis byIds = analyzeSeq2SeqIds(*m, tokenize::ids(a.encoder.tokens), ids);
    EXPECT_EQ(a.decoder.forward.tokenIds, byIds.decoder.forward.tokenIds);
    const HeadId last{a.cross.forward.nLayers - 1, a.cross.forward.nHeads - 1};
    EXPECT_EQ(a.cross.forward.attention(last), byIds.cross.forward.attention(last));
    const std::vector<std::pair<std::size_t, std::size_t>> bytes = {
        {0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5},  {5, 6},
        {6, 7}, {7, 8}, {8, 9}, {9, 9}, {9, 11}, {11, 11}};
    ASSERT_EQ(a.targetTokens.size(), bytes.size());
    for (std::size_t k = 0; k < bytes.size(); ++k) {
        const tokenize::Token& token = a.targetTokens[k];
        EXPECT_EQ(std::pair(token.byteBegin, token.byteEnd), bytes[k]) << "token " << k;
        EXPECT_EQ(token.special, k + 1 == bytes.size()) << "token " << k;
    }
    EXPECT_EQ(a.targetTokens[10].charBegin, 9u);  // "é" is one character
    EXPECT_EQ(a.targetTokens[10].charEnd, 10u);
    EXPECT_EQ(a.targetTokens[11].charBegin, 10u);
    // So word-level cross-attention reads it as a typed target.
    EXPECT_EQ(crossAlignment(a, 0).targetWords, (std::vector<std::string>{"heads", "café"}));
    // Without a tokenizer there is no text to decode to.
    expectError<InvalidArgument>([&] { analyzeSeq2SeqDecoded(*load("bart_f32"), "a", {5}); },
                                 {"no tokenizer"});
}

// Word-level cross-attention on a hand-made map: rows are target words as produced, columns
// source words; special tokens are dropped, tokens of a word summed (columns) or averaged (rows).
TEST(Seq2SeqAnalysis, CrossAlignmentSumsSourceWordsAndAveragesTargetWords) {
    Seq2SeqAnalysis a;
    const auto token = [](const char* text, std::size_t begin, std::size_t end, bool special) {
        return tokenize::Token{
            .text = text, .byteBegin = begin, .byteEnd = end, .special = special};
    };
    a.targetText = "ab c";
    a.targetTokens = {token("a", 0, 1, false), token("b", 1, 2, false), token("c", 3, 4, false),
                      token("</s>", 0, 0, true)};
    a.cross.keyText = "x yz";
    a.cross.keyTokens = {token("x", 0, 1, false), token("y", 2, 3, false), token("z", 3, 4, false),
                         token("</s>", 0, 0, true)};
    forward::ForwardResult& r = a.cross.forward;
    r.nLayers = 1;
    r.nHeads = 2;
    r.nTokens = 4;
    r.nKeys = 4;
    Matrix h0(4, 4);
    h0 << 0.1f, 0.2f, 0.3f, 0.4f,  //
        0.5f, 0.0f, 0.5f, 0.0f,    //
        0.0f, 1.0f, 0.0f, 0.0f,    //
        0.25f, 0.25f, 0.25f, 0.25f;
    const Matrix h1 = Matrix::Constant(4, 4, 0.25f);
    r.probs.resize(32);
    MatrixMap(r.probs.data(), 4, 4) = h0;
    MatrixMap(r.probs.data() + 16, 4, 4) = h1;

    const CrossAlignment one = crossAlignment(a, 0, 0);
    EXPECT_EQ(one.targetWords, (std::vector<std::string>{"ab", "c"}));
    EXPECT_EQ(one.sourceWords, (std::vector<std::string>{"x", "yz"}));
    Matrix want(2, 2);
    want << 0.3f, 0.5f,  // mean of rows a and b: x = (0.1 + 0.5) / 2, yz = (0.5 + 0.5) / 2
        0.0f, 1.0f;
    EXPECT_TRUE(one.weights.isApprox(want, 1e-6f)) << one.weights;
    const CrossAlignment mean = crossAlignment(a, 0);
    EXPECT_TRUE(mean.weights.isApprox(
        (want + Matrix::Constant(2, 2, 0.25f) * Eigen::DiagonalMatrix<float, 2>(1.0f, 2.0f)) / 2.0f,
        1e-6f))
        << mean.weights;
    expectError<InvalidArgument>([&] { crossAlignment(a, 1); }, {"layer 1"});
}

}  // namespace
}  // namespace attnscope::analysis
