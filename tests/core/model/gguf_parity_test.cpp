// GGUF models against their references (issue 32), on the files make_gguf_checkpoints.py
// writes the way llama.cpp's converter does: the Hugging Face test checkpoints converted (F32,
// BF16; llama's q/k rows interleaved; Llama 3 scaling as rope_freqs; GPT-2's transposed
// Conv1D weights with q|k|v fused; BERT without its masked-LM head) and quantized models
// (Q8_0; a Q4_K_M mix; every readable type) whose reference is the PyTorch pass on the weights
// as ggml dequantizes them. Each must match its reference to the parity tolerances, and give
// the same bits as the Hugging Face folder holding the same weights.
#include <algorithm>
#include <cstring>

#include <gtest/gtest.h>

#include "../support/manifest.h"
#include "../support/max_abs.h"
#include "../support/reference_file.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/prediction.h"
#include "attnscope/model/model.h"
#include "attnscope/tokenize/tokenizer.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::maxAbs;
using testing::maxAbsDiff;

constexpr double kProbTolerance = 1e-5;
constexpr double kRelTolerance = 1e-4;

const fs::path kRoot = fs::path(ATTNSCOPE_FIXTURE_DIR) / "gguf";

const std::vector<std::string> kCases = {
    "llama_f32",       "llama_gqa2_headdim_bf16",
    "llama3_gqa4_f32", "qwen2_gqa2_bf16",
    "gpt2_f32",        "gpt2_sharded_bf16",
    "bert_f32",        "bert_bf16",
    "llama_q8_0",      "llama_q4_k",
    "qwen2_q4_k_m",    "llama_every_type",
};

class GgufParity : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override { m_entry = testing::manifestEntry(kRoot, GetParam()); }

    std::shared_ptr<const model::Model> gguf() const {
        return model::loadModel(kRoot / m_entry.at("gguf").get<std::string>());
    }

    // BERT's converter leaves the masked-LM head out: such a file predicts nothing.
    bool hasHead() const { return m_entry.value("lm_head", true); }

    json m_entry;
};

TEST_P(GgufParity, MatchesTheReferenceOfTheDequantizedWeights) {
    const auto model = gguf();
    EXPECT_EQ(model->spec.modelType, m_entry.at("architecture"));
    const bool quantized =
        GetParam().find("_q") != std::string::npos || GetParam().find("every") != std::string::npos;
    EXPECT_EQ(model->blockWeights, quantized);
    int checked = 0;
    for (const json& file : m_entry.at("references")) {
        const auto ref = testing::readReference(kRoot / file.get<std::string>());
        const auto r = forward::runForward(*model, {ref.inputIds, {}});
        const std::string what =
            GetParam() + " (" + model->storedDtypes + "), n = " + std::to_string(r.nTokens);
        ASSERT_EQ(r.probs.size(), ref.attention.size()) << what;
        EXPECT_LE(maxAbsDiff(r.probs.data(), ref.attention), kProbTolerance) << what;
        EXPECT_LE(maxAbsDiff(r.logits.data(), ref.logits) / std::max(1.0, maxAbs(ref.logits)),
                  kRelTolerance)
            << what;
        EXPECT_LE(maxAbsDiff(r.hidden.data(), ref.hidden) / std::max(1.0, maxAbs(ref.hidden)),
                  kRelTolerance)
            << what;
        ASSERT_FALSE(ref.lmLogits.empty()) << what;
        if (!hasHead()) {
            EXPECT_FALSE(forward::hasPredictionHead(*model)) << what;
            EXPECT_THROW(forward::vocabularyLogits(*model, r.hidden), InvalidArgument) << what;
            ++checked;
            continue;
        }
        const Matrix lm = forward::vocabularyLogits(*model, r.hidden);
        ASSERT_EQ(static_cast<std::size_t>(lm.size()), ref.lmLogits.size()) << what;
        EXPECT_LE(maxAbsDiff(lm.data(), ref.lmLogits) / std::max(1.0, maxAbs(ref.lmLogits)),
                  kRelTolerance)
            << what;
        ++checked;
    }
    EXPECT_GE(checked, 2);
}

// The Hugging Face folder with the same weights (the checkpoint converted, or the dequantized
// weights in F32) computes the same bits: GGUF changes where the numbers come from, not them.
// Llama 3 scaling is the exception: llama.cpp's file stores it as rope_freqs factors, and the
// frequencies divided by them round differently from Hugging Face's formula (a few ulp).
TEST_P(GgufParity, GivesTheBitsOfTheSameWeightsInAHuggingFaceFolder) {
    const auto fromGguf = gguf();
    const auto fromFolder = model::loadModel(kRoot / m_entry.at("hf_folder").get<std::string>());
    const bool ropeFactors = !fromGguf->spec.rope.frequencyFactors.empty();
    for (const json& input : m_entry.at("inputs")) {
        const std::vector<std::int32_t> ids = input.get<std::vector<std::int32_t>>();
        const auto a = forward::runForward(*fromGguf, {ids, {}});
        const auto b = forward::runForward(*fromFolder, {ids, {}});
        ASSERT_EQ(a.probs.size(), b.probs.size());
        if (ropeFactors) {
            EXPECT_LE(
                maxAbsDiff(a.probs.data(), std::vector<float>(b.probs.begin(), b.probs.end())),
                1e-6);
            continue;
        }
        EXPECT_EQ(0, std::memcmp(a.probs.data(), b.probs.data(), a.probs.size() * sizeof(float)))
            << GetParam() << ", n = " << ids.size();
        EXPECT_EQ(0, std::memcmp(a.hidden.data(), b.hidden.data(),
                                 static_cast<std::size_t>(a.hidden.size()) * sizeof(float)))
            << GetParam();
        if (!hasHead()) {
            continue;
        }
        const Matrix la = forward::vocabularyLogits(*fromGguf, a.hidden);
        const Matrix lb = forward::vocabularyLogits(*fromFolder, b.hidden);
        EXPECT_EQ(0, std::memcmp(la.data(), lb.data(),
                                 static_cast<std::size_t>(la.size()) * sizeof(float)));
    }
}

// GPT-2's and BERT's vocabularies from tokenizer.ggml.* (byte-level BPE; llama.cpp's WPM on the
// converter's '▁' spelling) tokenize as the folder's vocab.json / vocab.txt do, pieces included,
// and a BERT file says why it predicts nothing.
// (The Llama family's GGUF tokenizers are checked in tests/core/tokenize.)
class GgufClassicTokens : public GgufParity {};

TEST_P(GgufClassicTokens, TokenizesAsTheHuggingFaceFolder) {
    const auto fromGguf = gguf();
    const auto fromFolder = model::loadModel(kRoot / m_entry.at("hf_folder").get<std::string>());
    const std::string text =
        "When we draw the weights of all the heads at once, patterns jump out: 2019 and 12345!";
    const auto a = fromGguf->tokenizer->encode(text);
    const auto b = fromFolder->tokenizer->encode(text);
    ASSERT_EQ(tokenize::ids(a), tokenize::ids(b));
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].text, b[i].text) << i;
        EXPECT_EQ(a[i].charBegin, b[i].charBegin) << i;
        EXPECT_EQ(a[i].charEnd, b[i].charEnd) << i;
    }
    const auto& warnings = fromGguf->warnings;
    const bool explained = std::any_of(warnings.begin(), warnings.end(), [](const std::string& w) {
        return w.starts_with("no prediction head: llama.cpp's converter leaves the masked-LM head");
    });
    EXPECT_EQ(explained, !hasHead());
}

// A parity test that cannot fail proves nothing: a 1 % scale error shows well above tolerance.
TEST_P(GgufParity, DetectsASmallScaleError) {
    const auto model = gguf();
    const auto ref =
        testing::readReference(kRoot / m_entry.at("references").back().get<std::string>());
    forward::ForwardOptions options;
    options.scale = 1.01f * model->spec.defaultScale(0);
    const auto r = forward::runForward(*model, {ref.inputIds, {}}, options);
    EXPECT_GT(maxAbsDiff(r.probs.data(), ref.attention), 10 * kProbTolerance);
}

ATTNSCOPE_MANIFEST_CASES(GgufParity, kRoot, kCases)
INSTANTIATE_TEST_SUITE_P(Checkpoints, GgufClassicTokens,
                         ::testing::Values("gpt2_f32", "gpt2_sharded_bf16", "bert_f32",
                                           "bert_bf16"),
                         testing::paramName);

}  // namespace
}  // namespace attnscope
