// The Llama-family tables (Llama, Mistral, Qwen2) on generated checkpoints: what config.json
// turns into, prediction heads tied and untied, and broken or unsupported configs. Issue 5.
#include <cmath>
#include <functional>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/checkpoint_copies.h"
#include "../support/expect_error.h"
#include "../support/test_files.h"
#include "attnscope/analysis/head_stats.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/prediction.h"
#include "attnscope/io/safetensors.h"
#include "attnscope/model/model.h"

namespace attnscope::model {
namespace {

namespace fs = std::filesystem;
using testing::expectError;

class LlamaLoaderTest : public testing::CheckpointCopies {
protected:
    // Drops the tensors whose names contain `part` from the copy's model.safetensors.
    void dropTensors(const fs::path& dir, const std::string& part) {
        rewriteWeights(
            dir, [&part](const std::string& name) { return name.find(part) == std::string::npos; },
            [](const std::string& name) { return name; });
    }
};

TEST_F(LlamaLoaderTest, GroupedQueryAttentionAndLlama3Rope) {
    const auto m = testing::fixtureModel("llama3_gqa4_f32");
    const ModelSpec& s = m->spec;
    EXPECT_EQ(s.modelType, "llama");
    EXPECT_EQ(s.nHeads, 8);
    EXPECT_EQ(s.nKvHeads, 2);
    EXPECT_EQ(s.kvHeadOf(3), 0);
    EXPECT_EQ(s.kvHeadOf(4), 1);
    EXPECT_EQ(s.headDimK, 8);  // explicit head_dim, hidden 40 / 8 heads would be 5
    EXPECT_EQ(s.rope.dims, 8);
    EXPECT_EQ(s.rope.scaling, RopeScaling::Llama3);
    EXPECT_EQ(s.normKind, NormKind::RmsNorm);
    EXPECT_EQ(s.ffnKind, FfnKind::Gated);
    EXPECT_EQ(s.defaultMask, DefaultMask::Causal);
    EXPECT_EQ(s.prediction, PredictionKind::CausalLm);
    EXPECT_EQ(m->weights.prediction.decoder.outputs(), s.vocabSize);  // its own lm_head
    EXPECT_EQ(m->weights.layers[0].key.weight.rows(), 2 * 8);
    EXPECT_TRUE(m->warnings.empty()) << m->warnings.front();
}

TEST_F(LlamaLoaderTest, TiedHeadPartialRotaryAndBiases) {
    const auto tied = testing::fixtureModel("llama_gqa2_headdim_bf16");
    EXPECT_EQ(tied->spec.rope.dims, 4);  // head_dim 8 x partial_rotary_factor 0.5
    EXPECT_EQ(tied->spec.prediction, PredictionKind::CausalLm);
    EXPECT_TRUE(tied->weights.prediction.decoder.empty());  // reuses embed_tokens
    const auto qwen = testing::fixtureModel("qwen2_gqa2_bf16");
    EXPECT_EQ(qwen->weights.layers[0].query.bias.size(), 4 * 6);
    EXPECT_EQ(qwen->weights.layers[0].key.bias.size(), 2 * 6);
    EXPECT_EQ(qwen->weights.layers[0].output.bias.size(), 0);
    const auto llama = testing::fixtureModel("llama_f32");
    EXPECT_EQ(llama->weights.layers[1].output.bias.size(), 24);   // attention_bias
    EXPECT_EQ(llama->weights.layers[1].ffnGate.bias.size(), 37);  // mlp_bias
    EXPECT_EQ(llama->spec.rope.scaling, RopeScaling::Linear);
}

TEST_F(LlamaLoaderTest, MistralSlidingWindowDefaultsAndNull) {
    EXPECT_EQ(testing::fixtureModel("mistral_mqa_window_f32")->spec.slidingWindow, 5);
    const auto dir = copy("mistral_mqa_window_f32");
    testing::editJson(dir / "config.json", [](auto& j) { j.erase("sliding_window"); });
    EXPECT_EQ(loadModel(dir)->spec.slidingWindow, 4096);  // MistralConfig's default
    testing::editJson(dir / "config.json", [](auto& j) { j["sliding_window"] = nullptr; });
    const auto unwindowed = loadModel(dir);
    EXPECT_FALSE(unwindowed->spec.slidingWindow.has_value());
    const auto r = forward::runForward(*unwindowed, {{1, 2, 3, 4, 5, 6, 7}, {}});
    EXPECT_EQ(r.maskKind, "causal");
    const auto w = forward::runForward(*testing::fixtureModel("mistral_mqa_window_f32"),
                                       {{1, 2, 3, 4, 5, 6, 7}, {}});
    EXPECT_EQ(w.maskKind, "causal + window 5");
    EXPECT_EQ(w.allowed(6, 1), 0);  // 6 - 1 = 5 is outside a window of 5
    EXPECT_EQ(w.allowed(6, 2), 1);
}

TEST_F(LlamaLoaderTest, UntiedModelWithoutLmHeadWarnsAndStillRuns) {
    const auto dir = copy("llama_f32");
    dropTensors(dir, "lm_head");
    const auto m = loadModel(dir);
    EXPECT_FALSE(forward::hasPredictionHead(*m));
    ASSERT_EQ(m->warnings.size(), 1u);
    EXPECT_NE(m->warnings[0].find("lm_head.weight"), std::string::npos) << m->warnings[0];
    const auto r = forward::runForward(*m, {{1, 2, 3}, {}});
    EXPECT_EQ(r.nTokens, 3);
    EXPECT_THROW(forward::topPredictions(*m, r, 0, 5), InvalidArgument);
}

TEST_F(LlamaLoaderTest, BadAndUnsupportedConfigs) {
    const auto dir = copy("llama_f32");
    testing::editJson(dir / "config.json", [](auto& j) {
        j["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4}};
    });
    expectError<UnsupportedModel>([&] { loadModel(dir); },
                                  {"config.json", "rope_scaling.rope_type", "'yarn'", "llama3"});
    testing::editJson(dir / "config.json", [](auto& j) {
        j["rope_scaling"] = {{"rope_type", "llama3"}};
    });
    expectError<FormatError>([&] { loadModel(dir); }, {"rope_scaling.factor", "missing"});
    testing::editJson(dir / "config.json", [](auto& j) {
        j["rope_scaling"] = nullptr;
        j["num_key_value_heads"] = 3;
    });
    expectError<FormatError>([&] { loadModel(dir); },
                             {"config.json", "num_key_value_heads (3)", "divide"});
    testing::editJson(dir / "config.json", [](auto& j) {
        j["num_key_value_heads"] = 4;
        j["partial_rotary_factor"] = 0.5;  // 6 * 0.5 = 3 rotated dims: odd
    });
    expectError<FormatError>([&] { loadModel(dir); }, {"config.json", "rotary dimensions (3)"});
}

// Issue 15: a RoPE setting of the wrong type used to be skipped (the default theta or no
// scaling was used instead); now it is refused, naming the file, the key path and the value.
TEST_F(LlamaLoaderTest, WronglyTypedRopeSettingsAreRefused) {
    const auto dir = copy("llama_f32");
    const std::string config = (dir / "config.json").string();
    const auto refuses = [&](const std::function<void(nlohmann::json&)>& edit,
                             const std::string& message) {
        testing::editJson(dir / "config.json", [&](auto& j) {
            j.erase("rope_scaling");
            j.erase("rope_parameters");
            j.erase("rope_theta");
            edit(j);
        });
        std::string expected = config;
        expected += ": $.";
        expected += message;
        expectError<FormatError>([&] { loadModel(dir); }, {expected});
    };
    refuses([](auto& j) { j["rope_theta"] = "abc"; },
            R"(rope_theta: expected a number, found "abc")");
    refuses(
        [](auto& j) {
            j["rope_parameters"] = {{"rope_type", "default"}, {"rope_theta", "abc"}};
        },
        R"(rope_parameters.rope_theta: expected a number, found "abc")");
    refuses(
        [](auto& j) {
            j["rope_parameters"] = {{"partial_rotary_factor", true}};
        },
        "rope_parameters.partial_rotary_factor: expected a number, found true");
    refuses(
        [](auto& j) {
            j["rope_scaling"] = {{"type", 3}, {"factor", 2.0}};
        },
        "rope_scaling.type: expected a string, found 3");
    refuses(
        [](auto& j) {
            j["rope_scaling"] = {{"type", "linear"}, {"factor", "2"}};
        },
        R"(rope_scaling.factor: expected a number, found "2")");
    refuses([](auto& j) { j["rope_scaling"] = "linear"; },
            R"(rope_scaling: expected an object, found "linear")");
}

TEST_F(LlamaLoaderTest, MissingBiasIsNamed) {
    const auto qwen = copy("qwen2_gqa2_bf16");
    dropTensors(qwen, "layers.1.self_attn.k_proj.bias");
    expectError<FormatError>([&] { loadModel(qwen); },
                             {"missing tensor 'model.layers.1.self_attn.k_proj.bias'", "key bias"});
}

// Qwen2 windows the layers from max_window_layers on (issue 33: a mask a layer).
TEST_F(LlamaLoaderTest, Qwen2WindowsTheLayersFromMaxWindowLayersOn) {
    const auto windowed = copy("qwen2_gqa2_bf16");
    testing::editJson(windowed / "config.json", [](auto& j) {
        j["use_sliding_window"] = true;
        j["max_window_layers"] = 1;
        j["sliding_window"] = 3;
    });
    const auto m = loadModel(windowed);
    EXPECT_EQ(m->spec.slidingLayers, (std::vector<std::uint8_t>{0, 1, 1}));
    EXPECT_FALSE(m->spec.windowed(0));
    EXPECT_TRUE(m->spec.windowed(2));
    const auto r = forward::runForward(*m, {{1, 2, 3, 4, 5, 6}, {}});
    EXPECT_EQ(r.maskKind, "causal + window 3 in local layers");
    EXPECT_EQ(r.allowedFor(0)(5, 0), 1);  // a global layer sees the first token
    EXPECT_EQ(r.allowedFor(1)(5, 2), 0);  // a local one only the last three
    EXPECT_EQ(r.allowedFor(1)(5, 3), 1);
    // The entropy of a uniform row follows each layer's own mask.
    EXPECT_FLOAT_EQ(analysis::uniformEntropy(r, 0)[5], std::log(6.0f));
    EXPECT_FLOAT_EQ(analysis::uniformEntropy(r, 1)[5], std::log(3.0f));
}

}  // namespace
}  // namespace attnscope::model
