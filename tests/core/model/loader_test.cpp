// The model loader on generated checkpoints, and every kind of broken model folder.
#include <algorithm>

#include <gtest/gtest.h>

#include "../support/checkpoint_copies.h"
#include "../support/expect_error.h"
#include "../support/test_files.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/io/checkpoint.h"
#include "attnscope/io/safetensors.h"
#include "attnscope/model/model.h"

namespace attnscope::model {
namespace {

namespace fs = std::filesystem;
using testing::expectError;

using testing::kFixtureCheckpoints;

class LoaderTest : public testing::CheckpointCopies {};

TEST_F(LoaderTest, LoadsSpecAndTokenizer) {
    const auto m = testing::fixtureModel("bert_f32");
    EXPECT_EQ(m->spec.modelType, "bert");
    EXPECT_EQ(m->spec.nLayers, 2);
    EXPECT_EQ(m->spec.nHeads, 3);
    EXPECT_EQ(m->spec.headDimK, 5);
    EXPECT_EQ(m->tensorPrefix, "bert.");
    EXPECT_EQ(m->storedDtypes, "F32");
    EXPECT_GT(m->parameterCount, 0);
    const auto g = testing::fixtureModel("gpt2_sharded_bf16");
    EXPECT_EQ(g->spec.defaultMask, DefaultMask::Causal);
    EXPECT_EQ(g->storedDtypes, "BF16");
    EXPECT_EQ(g->tensorPrefix, "transformer.");
}

TEST_F(LoaderTest, MissingFolderAndConfig) {
    expectError<FormatError>([&] { loadModel(m_dir.path() / "nope"); },
                             {"nope", "cannot open", "No such file or directory"});
    expectError<FormatError>([&] { loadModel(m_dir.path()); }, {"config.json", "cannot open"});
}

TEST_F(LoaderTest, UnknownModelTypeListsSupported) {
    const auto dir = withConfig("bert_f32", [](auto& j) { j["model_type"] = "xlnet"; });
    expectError<UnsupportedModel>(
        [&] { loadModel(dir); }, {"config.json", "'xlnet'", "bert", "roberta", "distilbert", "gpt2",
                                  "t5", "bart", "marian"});
}

TEST_F(LoaderTest, ZeroAndNonDivisibleSizes) {
    const auto dir = withConfig("bert_f32", [](auto& j) { j["num_hidden_layers"] = 0; });
    expectError<FormatError>([&] { loadModel(dir); },
                             {"config.json", "num_hidden_layers", "positive integer, found 0"});
    testing::editJson(dir / "config.json", [](auto& j) {
        j["num_hidden_layers"] = 2;
        j["num_attention_heads"] = 4;  // hidden 15
    });
    expectError<FormatError>([&] { loadModel(dir); }, {"config.json", "not divisible"});
    testing::editJson(dir / "config.json", [](auto& j) {
        j["num_attention_heads"] = 3;
        j["hidden_size"] = "fifteen";
    });
    expectError<FormatError>([&] { loadModel(dir); }, {"hidden_size", "\"fifteen\""});
}

TEST_F(LoaderTest, ConfigDisagreesWithTensorShape) {
    const auto dir = withConfig("bert_f32", [](auto& j) { j["intermediate_size"] = 38; });
    expectError<FormatError>(
        [&] { loadModel(dir); },
        {"model.safetensors", "intermediate.dense.weight", "shape [37, 15]", "expected [38, 15]"});
}

TEST_F(LoaderTest, MissingTensorIsNamed) {
    const auto dir = copy("gpt2_f32");
    rewriteWeights(
        dir, [](const std::string& n) { return n != "transformer.h.1.mlp.c_fc.weight"; },
        [](const std::string& n) { return n; });
    expectError<FormatError>([&] { loadModel(dir); },
                             {"missing tensor 'transformer.h.1.mlp.c_fc.weight'", "feed-forward"});
}

TEST_F(LoaderTest, WrongArchitectureSaysSo) {
    const auto dir = withConfig("gpt2_f32", [](auto& j) {
        j = {{"model_type", "bert"},   {"hidden_size", 18},       {"num_attention_heads", 3},
             {"num_hidden_layers", 2}, {"intermediate_size", 72}, {"vocab_size", 10}};
    });
    expectError<FormatError>([&] { loadModel(dir); }, {"word_embeddings", "really a bert"});
}

TEST_F(LoaderTest, TensorFlowNormNamesAndUnknownTensors) {
    const auto dir = copy("bert_f32");
    rewriteWeights(
        dir, [](const std::string&) { return true; },
        [](std::string n) {
            if (n.ends_with("LayerNorm.weight")) {
                n.replace(n.size() - 6, 6, "gamma");
            } else if (n.ends_with("LayerNorm.bias")) {
                n.replace(n.size() - 4, 4, "beta");
            }
            return n == "cls.predictions.bias" ? "mystery.tensor" : n;
        });
    const auto m = loadModel(dir);
    std::vector<std::string> tensorWarnings;
    for (const std::string& w : m->warnings) {
        if (w.find("tensor") != std::string::npos) {
            tensorWarnings.push_back(w);
        }
    }
    ASSERT_EQ(tensorWarnings.size(), 1u);
    EXPECT_NE(tensorWarnings[0].find("ignored 1 unknown tensor(s): mystery.tensor"),
              std::string::npos)
        << tensorWarnings[0];
}

TEST_F(LoaderTest, TooManyTokensAndBadIds) {
    const auto m = testing::fixtureModel("bert_f32");
    forward::ForwardInput input;
    input.tokenIds.assign(static_cast<std::size_t>(m->spec.maxTokens()) + 1, 5);
    expectError<InvalidArgument>(
        [&] { forward::runForward(*m, input); },
        {std::to_string(m->spec.maxTokens() + 1) + " tokens exceed", "max_position_embeddings"});
    input.tokenIds = {1, m->spec.vocabSize};
    expectError<InvalidArgument>([&] { forward::runForward(*m, input); },
                                 {"token 1", "outside the vocabulary"});
    input.tokenIds.clear();
    expectError<InvalidArgument>([&] { forward::runForward(*m, input); }, {"no tokens"});
}

TEST_F(LoaderTest, NoTokenizerIsAWarningNotAnError) {
    const auto dir = copy("gpt2_f32");
    fs::remove(dir / "vocab.json");
    fs::remove(dir / "merges.txt");
    fs::remove(dir / "tokenizer.json");
    const auto m = loadModel(dir);
    EXPECT_EQ(m->tokenizer, nullptr);
    ASSERT_FALSE(m->warnings.empty());
    EXPECT_NE(m->warnings.back().find("no tokenizer"), std::string::npos);
}

// Issue 13: token ids need no tokenizer. With TokenizerLoading::VocabularyOnly a tokenizer.json
// whose model AttnScope cannot run (WordLevel) still opens, its pieces labelling the ids; a
// broken one costs only the labels.
TEST_F(LoaderTest, VocabularyOnlyOpensAnUnrunnableTokenizer) {
    const auto dir = copy("gpt2_f32");
    fs::remove(dir / "vocab.json");
    fs::remove(dir / "merges.txt");
    testing::writeFile(dir / "tokenizer.json",
                       R"({"added_tokens": [{"id": 2, "content": "</s>", "special": true}],
                           "pre_tokenizer": {"type": "UnicodeScripts"},
                           "model": {"type": "WordLevel", "unk_token": "<unk>",
                                     "vocab": {"C": 0, "O": 1, "</s>": 2}}})");
    expectError<UnsupportedModel>([&] { loadModel(dir); },
                                  {dir.string() + ": loading tokenizer: ", "UnicodeScripts"});
    LoadOptions options;
    options.tokenizer = TokenizerLoading::VocabularyOnly;
    const auto m = loadModel(dir, options);
    EXPECT_EQ(m->tokenizer, nullptr);
    ASSERT_NE(m->vocabulary(), nullptr);
    EXPECT_EQ(m->vocabulary()->idToToken(1), "O");
    EXPECT_EQ(m->vocabulary()->specialId(tokenize::SpecialRole::Eos), 2);
    EXPECT_TRUE(m->warnings.empty()) << m->warnings.front();

    testing::writeFile(dir / "tokenizer.json", "{\"model\": ");
    const auto broken = loadModel(dir, options);
    EXPECT_EQ(broken->vocabulary(), nullptr);
    ASSERT_EQ(broken->warnings.size(), 1u);
    EXPECT_NE(broken->warnings[0].find("tokenizer.json"), std::string::npos) << broken->warnings[0];
    EXPECT_NE(broken->warnings[0].find("labelled by their numbers"), std::string::npos)
        << broken->warnings[0];
}

// Issue 6: progress is the fraction of bytes read, not of tensors: a 7 B model has a few
// hundred tensors of very different sizes. Each step is one tensor's share of the checkpoint.
TEST_F(LoaderTest, ProgressCountsBytes) {
    const fs::path dir = kFixtureCheckpoints / "gpt2_sharded_bf16";
    std::vector<double> seen;
    LoadOptions options;
    options.progress = [&seen](double f) { seen.push_back(f); };
    (void)loadModel(dir, options);
    ASSERT_GE(seen.size(), 2u);
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
    EXPECT_GT(seen.front(), 0.0);
    EXPECT_EQ(seen.back(), 1.0);
    std::size_t total = 0;
    std::size_t largest = 0;
    const io::Checkpoint ckpt(dir);
    for (const auto& file : ckpt.files()) {
        for (const auto& [name, t] : file->tensors()) {
            total += t.bytes.size();
            largest = std::max(largest, t.bytes.size());
        }
    }
    double maxStep = seen.front();
    for (std::size_t i = 1; i < seen.size(); ++i) {
        maxStep = std::max(maxStep, seen[i] - seen[i - 1]);
    }
    EXPECT_NEAR(maxStep, static_cast<double>(largest) / static_cast<double>(total), 1e-12);
}

TEST_F(LoaderTest, CancelStopsLoading) {
    LoadOptions options;
    options.cancel.cancel();
    EXPECT_THROW(loadModel(kFixtureCheckpoints / "bert_f32", options), Cancelled);
}

}  // namespace
}  // namespace attnscope::model
