// The encoder-decoder interchange file (issue 20): three groups with their own shapes (cross is
// rectangular: decoder rows x source columns), each with the tokens, ids and spans of its rows
// and columns; the target's tokens at the root; the attributes that say what the file is; and
// inconsistent analyses refused before anything is written. (The values against the reference:
// tests/core/cli/seq2seq_cli_test.cpp.)
#include "attnscope/export/seq2seq_export.h"

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <hdf5.h>

#include "../support/h5_reader.h"
#include "../support/test_files.h"
#include "attnscope/base/error.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;
using testing::H5Reader;

// A pass of `layers` x `heads` maps [rows, cols] whose cells count up from `first`.
forward::ForwardResult pass(int layers, int heads, int rows, int cols, float first, bool cross) {
    forward::ForwardResult r;
    r.nLayers = layers;
    r.nHeads = heads;
    r.nTokens = rows;
    r.nKeys = cross ? cols : 0;
    const auto cells = static_cast<std::size_t>(layers * heads * rows * cols);
    for (std::size_t k = 0; k < cells; ++k) {
        r.probs.push_back(first + static_cast<float>(k));
        r.logits.push_back(-first - static_cast<float>(k));
    }
    r.entropy.assign(static_cast<std::size_t>(layers * heads * rows), 0.5F);
    r.allowed = BoolMatrix::Ones(rows, cols);
    r.hidden = Matrix::Constant(rows, 3, first);
    r.scales.assign(static_cast<std::size_t>(layers), 0.25F);
    r.maskKind = cross ? "none" : "causal";
    return r;
}

tokenize::Token token(const std::string& text, int id, std::size_t begin, std::size_t end) {
    return {.text = text, .id = id, .charBegin = begin, .charEnd = end};
}

// Source "ab c" as three tokens; target "xy" as two; encoder 1x2 heads, decoder 2x1.
analysis::Seq2SeqAnalysis analysis() {
    analysis::Seq2SeqAnalysis a;
    a.encoder.text = "ab c";
    a.encoder.tokens = {token("ab", 10, 0, 2), token("c", 11, 3, 4), token("</s>", 2, 0, 0)};
    a.encoder.forward = pass(1, 2, 3, 3, 0.0F, false);
    a.encoder.forward.maskKind = "none";
    a.targetText = "xy";
    a.targetTokens = {token("xy", 20, 0, 2), token("</s>", 2, 0, 0)};
    const std::vector<tokenize::Token> rows = {token("</s>", 2, 0, 0), a.targetTokens[0]};
    a.decoder.tokens = rows;
    a.decoder.forward = pass(2, 1, 2, 2, 100.0F, false);
    a.cross.tokens = rows;
    a.cross.keyTokens = a.encoder.tokens;
    a.cross.forward = pass(2, 1, 2, 3, 200.0F, true);
    return a;
}

std::vector<hsize_t> dims(std::initializer_list<hsize_t> d) {
    return d;
}

TEST(Seq2SeqExport, WritesThreeGroupsWithTheirTokens) {
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "s2s.h5";
    exporting::writeSeq2SeqInterchangeFile(out, analysis(), {"models/bart", "bart", 2});
    const H5Reader h5(out);
    ASSERT_TRUE(h5.ok());
    EXPECT_EQ(h5.text("file_kind"), "encoder-decoder");
    EXPECT_EQ(h5.text("model"), "models/bart");
    EXPECT_EQ(h5.text("model_type"), "bart");
    EXPECT_EQ(h5.text("source_text"), "ab c");
    EXPECT_EQ(h5.text("target_text"), "xy");
    EXPECT_EQ(h5.text("teacher_forcing"), exporting::kTeacherForcingRule);
    EXPECT_EQ(h5.number<std::int64_t>("decoder_start_token_id", H5T_NATIVE_INT64), 2);
    EXPECT_TRUE(h5.hasAttribute("attnscope_version"));
    // The one-stack layout's root datasets are not there: a reader cannot mistake the file.
    EXPECT_FALSE(h5.exists("attention"));

    EXPECT_EQ(h5.dims("encoder/attention"), dims({1, 2, 3, 3}));
    EXPECT_EQ(h5.dims("decoder/attention"), dims({2, 1, 2, 2}));
    EXPECT_EQ(h5.dims("cross/attention"), dims({2, 1, 2, 3}));
    EXPECT_EQ(h5.dims("cross/logits"), dims({2, 1, 2, 3}));
    EXPECT_EQ(h5.dims("cross/mask"), dims({2, 3}));
    EXPECT_EQ(h5.dims("cross/entropy"), dims({2, 1, 2}));
    EXPECT_EQ(h5.dims("encoder/hidden"), dims({3, 3}));
    EXPECT_EQ(h5.dims("decoder/hidden"), dims({2, 3}));
    EXPECT_FALSE(h5.exists("cross/hidden"));  // cross-attention has no states of its own

    const auto cross = h5.values<float>("cross/attention", H5T_NATIVE_FLOAT);
    EXPECT_EQ(cross.front(), 200.0F);
    EXPECT_EQ(cross.back(), 211.0F);
    EXPECT_EQ(h5.values<float>("decoder/logits", H5T_NATIVE_FLOAT).at(1), -101.0F);

    const std::vector<std::string> source = {"ab", "c", "</s>"};
    const std::vector<std::string> decoderRows = {"</s>", "xy"};
    EXPECT_EQ(h5.strings("encoder/row_tokens"), source);
    EXPECT_EQ(h5.strings("encoder/column_tokens"), source);
    EXPECT_EQ(h5.strings("decoder/column_tokens"), decoderRows);
    EXPECT_EQ(h5.strings("cross/row_tokens"), decoderRows);
    EXPECT_EQ(h5.strings("cross/column_tokens"), source);
    EXPECT_EQ(h5.values<std::int64_t>("cross/column_token_ids", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{10, 11, 2}));
    EXPECT_EQ(h5.values<std::int64_t>("cross/column_offsets", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{0, 2, 3, 4, 0, 0}));
    EXPECT_EQ(h5.values<std::int64_t>("cross/row_token_ids", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{2, 20}));
    EXPECT_EQ(h5.strings("target_tokens"), (std::vector<std::string>{"xy", "</s>"}));
    EXPECT_EQ(h5.values<std::int64_t>("target_offsets", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{0, 2, 0, 0}));

    EXPECT_EQ(h5.text("kind", "cross"), "Cross-attention");
    EXPECT_EQ(h5.text("mask_kind", "decoder"), "causal");
    EXPECT_EQ(h5.number<std::int64_t>("num_layers", H5T_NATIVE_INT64, "encoder"), 1);
    EXPECT_EQ(h5.number<std::int64_t>("num_heads", H5T_NATIVE_INT64, "encoder"), 2);
    EXPECT_EQ(h5.number<float>("scale", H5T_NATIVE_FLOAT, "cross"), 0.25F);
}

// An empty target (the decoder on its start token alone) still makes a readable file.
TEST(Seq2SeqExport, EmptyTargetWritesEmptyTargetDatasets) {
    analysis::Seq2SeqAnalysis a = analysis();
    a.targetText.clear();
    a.targetTokens.clear();
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "empty.h5";
    exporting::writeSeq2SeqInterchangeFile(out, a, {"m", "t5", 0});
    const H5Reader h5(out);
    EXPECT_EQ(h5.dims("target_token_ids"), dims({0}));
    EXPECT_EQ(h5.dims("target_offsets"), dims({0, 2}));
}

TEST(Seq2SeqExport, RefusesTokensThatDoNotMatchTheMaps) {
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "bad.h5";
    analysis::Seq2SeqAnalysis a = analysis();
    a.cross.keyTokens.pop_back();
    try {
        exporting::writeSeq2SeqInterchangeFile(out, a, {"m", "bart", 2});
        ADD_FAILURE() << "nothing thrown";
    } catch (const InvalidArgument& e) {
        EXPECT_EQ(std::string(e.what()), out.string() + ": cross: 2 column tokens for 3 columns");
    }
    a = analysis();
    a.targetTokens.push_back(token("z", 30, 0, 0));
    EXPECT_THROW(exporting::writeSeq2SeqInterchangeFile(out, a, {"m", "bart", 2}), InvalidArgument);
    EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace attnscope
