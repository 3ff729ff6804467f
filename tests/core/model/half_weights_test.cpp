// Half-precision layer weights kept in memory (issue 6): F16/BF16 checkpoints loaded with
// WeightPrecision::AsStored hold the layer matrices at 2 bytes per weight, and their forward
// passes still match the PyTorch reference to 1e-5 and the fp32-widened load closely.
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "../support/reference_file.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"

namespace attnscope::model {
namespace {

namespace fs = std::filesystem;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

double maxAbsDiff(const float* a, const float* b, std::size_t n) {
    double m = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        m = std::max(m, std::abs(static_cast<double>(a[i]) - b[i]));
    }
    return m;
}

class HalfWeights : public ::testing::TestWithParam<std::string> {};

TEST_P(HalfWeights, KeptHalfAndStillMatchTheReference) {
    const fs::path dir = kCheckpoints / GetParam();
    LoadOptions half;
    half.weights = WeightPrecision::AsStored;
    LoadOptions wide;
    wide.weights = WeightPrecision::Float32;
    const auto h = loadModel(dir, half);
    const auto f = loadModel(dir, wide);
    ASSERT_TRUE(h->halfWeights);
    const LayerWeights& layer = h->weights.layers[0];
    for (const Linear* l :
         {&layer.query, &layer.key, &layer.value, &layer.output, &layer.ffnUp, &layer.ffnDown}) {
        EXPECT_GT(l->half.bits.size(), 0) << GetParam();
        EXPECT_EQ(l->weight.size(), 0) << "no fp32 copy next to the half one";
    }
    EXPECT_EQ(layer.query.half.bits.rows(), f->weights.layers[0].query.weight.rows());
    EXPECT_EQ(h->parameterCount, f->parameterCount);

    const auto ref = testing::readReference(dir / "reference_1.safetensors");
    const auto rh = forward::runForward(*h, {ref.inputIds, {}});
    const auto rf = forward::runForward(*f, {ref.inputIds, {}});
    EXPECT_LE(maxAbsDiff(rh.probs.data(), ref.attention.data(), ref.attention.size()), 1e-5);
    EXPECT_LE(maxAbsDiff(rh.probs.data(), rf.probs.data(), rf.probs.size()), 1e-6);
    EXPECT_LE(
        maxAbsDiff(rh.hidden.data(), rf.hidden.data(), static_cast<std::size_t>(rf.hidden.size())) /
            std::max(1.0, static_cast<double>(rf.hidden.cwiseAbs().maxCoeff())),
        1e-5);
}

INSTANTIATE_TEST_SUITE_P(Checkpoints, HalfWeights,
                         ::testing::Values("bert_noprefix_f16", "bert_bf16", "distilbert_f16",
                                           "gpt2_noprefix_f16", "gpt2_sharded_bf16",
                                           "llama_gqa2_headdim_bf16", "qwen2_gqa2_bf16"),
                         [](const auto& p) { return p.param; });

TEST(HalfWeightsPolicy, AutoWidensSmallModelsAndFloat32CheckpointsStayFloat32) {
    const auto small = loadModel(kCheckpoints / "bert_bf16");
    EXPECT_FALSE(small->halfWeights);  // far below kAutoHalfBytes
    EXPECT_GT(small->weights.layers[0].query.weight.size(), 0);
    LoadOptions half;
    half.weights = WeightPrecision::AsStored;
    const auto f32 = loadModel(kCheckpoints / "llama_f32", half);
    EXPECT_EQ(f32->weights.layers[0].query.half.bits.size(), 0);  // nothing to keep half
    EXPECT_GT(f32->weights.layers[0].query.weight.size(), 0);
}

}  // namespace
}  // namespace attnscope::model
