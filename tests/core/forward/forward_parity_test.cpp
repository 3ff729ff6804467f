// Parity of the forward pass with the independent PyTorch implementation in
// tests/reference/torch_reference.py, on random-weight checkpoints in Hugging Face layout.
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "../support/manifest.h"
#include "../support/max_abs.h"
#include "../support/reference_file.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/prediction.h"
#include "attnscope/model/model.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;
using testing::maxAbs;
using testing::maxAbsDiff;

// Probabilities are in [0, 1]; fp32 forward passes that differ only in summation order agree
// far better than this, so 1e-5 absolute catches any real difference (the product's promise).
constexpr double kProbTolerance = 1e-5;
// Hidden states and logits grow with depth; compare relative to the tensor's largest value.
constexpr double kRelTolerance = 1e-4;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

// The cases make_checkpoints.py writes; ManifestListsEveryCase keeps the two lists in step.
const std::vector<std::string> kCases = {
    "bert_f32",
    "bert_noprefix_f16",
    "bert_bf16",
    "roberta_f32",
    "distilbert_f16",
    "gpt2_f32",
    "gpt2_noprefix_f16",
    "gpt2_sharded_bf16",
    "llama_f32",
    "llama_gqa2_headdim_bf16",
    "llama3_gqa4_f32",
    "mistral_mqa_window_f32",
    "qwen2_gqa2_bf16",
    // The later decoders (issue 33): methods.md §13's details, each case's "features" in the
    // manifest.
    "gemma_mqa_f32",
    "gemma2_window_softcap_f32",
    "gemma3_text_qknorm_bf16",
    "gemma3_multimodal_f32",
    "qwen3_gqa_qknorm_f32",
    "qwen3_sliding_mqa_bf16",
    "olmo2_f32",
    "phi3_longrope_window_f32",
    "gptneox_parallel_f16",
    "gptneox_sequential_f32",
    // A training series of one shape (checkpoint_series_test.cpp links them as step folders).
    "pythia_series_step0_f32",
    "pythia_series_step512_f32",
    "pythia_series_step4096_f32",
};

class ForwardParity : public ::testing::TestWithParam<std::string> {};

TEST_P(ForwardParity, MatchesPyTorchReference) {
    const fs::path dir = kCheckpoints / GetParam();
    ASSERT_TRUE(fs::exists(dir)) << dir << " missing: run the reference.checkpoints test first";
    const auto model = model::loadModel(dir);
    int checked = 0;
    for (int k = 0; fs::exists(dir / ("reference_" + std::to_string(k) + ".safetensors")); ++k) {
        const auto ref =
            testing::readReference(dir / ("reference_" + std::to_string(k) + ".safetensors"));
        const auto r = forward::runForward(*model, {ref.inputIds, {}});
        const std::string what = "case " + GetParam() + " (" + model->spec.modelType + ", " +
                                 std::to_string(model->spec.nLayers) + " layers x " +
                                 std::to_string(model->spec.nHeads) + " heads, dtype " +
                                 model->storedDtypes + ", mask " + r.maskKind + "), reference " +
                                 std::to_string(k) + ", n = " + std::to_string(r.nTokens);
        ASSERT_EQ(r.probs.size(), ref.attention.size()) << what;
        EXPECT_LE(maxAbsDiff(r.probs.data(), ref.attention), kProbTolerance) << what;
        EXPECT_LE(maxAbsDiff(r.logits.data(), ref.logits) / std::max(1.0, maxAbs(ref.logits)),
                  kRelTolerance)
            << what;
        ASSERT_EQ(static_cast<std::size_t>(r.hidden.size()), ref.hidden.size()) << what;
        EXPECT_LE(maxAbsDiff(r.hidden.data(), ref.hidden) / std::max(1.0, maxAbs(ref.hidden)),
                  kRelTolerance)
            << what;
        // The prediction head: present exactly when the reference computed one.
        EXPECT_EQ(forward::hasPredictionHead(*model), !ref.lmLogits.empty()) << what;
        if (!ref.lmLogits.empty()) {
            const Matrix lm = forward::vocabularyLogits(*model, r.hidden);
            ASSERT_EQ(static_cast<std::size_t>(lm.size()), ref.lmLogits.size()) << what;
            EXPECT_LE(maxAbsDiff(lm.data(), ref.lmLogits) / std::max(1.0, maxAbs(ref.lmLogits)),
                      kRelTolerance)
                << what;
        }
        ++checked;
    }
    EXPECT_GE(checked, 2) << "expected several reference inputs for " << GetParam();
}

// Guards against a parity test that cannot fail: a 1 % change of the scale must show up well
// above the tolerance, so the random weights give attention far from uniform.
TEST_P(ForwardParity, DetectsASmallScaleError) {
    const fs::path dir = kCheckpoints / GetParam();
    ASSERT_TRUE(fs::exists(dir)) << dir << " missing";
    const auto model = model::loadModel(dir);
    const auto ref = testing::readReference(dir / "reference_1.safetensors");
    forward::ForwardOptions options;
    options.scale = 1.01f * model->spec.defaultScale(0);
    const auto r = forward::runForward(*model, {ref.inputIds, {}}, options);
    EXPECT_GT(maxAbsDiff(r.probs.data(), ref.attention), 10 * kProbTolerance) << GetParam();
}

ATTNSCOPE_MANIFEST_CASES(ForwardParity, kCheckpoints, kCases)

}  // namespace
}  // namespace attnscope
