// Attention while generating (issue 34; methods.md §12.5) against the independent reference
// (tests/reference/generation_reference.py: greedy decoding by full passes, no cache), and the
// identity the key/value cache must keep: a step's row is the last row of a full pass over the
// same tokens. Sampling filters against the reference's llama.cpp chain on step 0's logits.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/expect_error.h"
#include "../support/reference_file.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/generation.h"

namespace attnscope::forward {
namespace {

namespace fs = std::filesystem;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

const std::vector<std::string> kCases = {"gpt2_f32", "llama_gqa2_headdim_bf16",
                                         "gemma2_window_softcap_f32", "qwen3_gqa_qknorm_f32",
                                         "gptneox_parallel_f16"};

class Generating : public ::testing::TestWithParam<std::string> {};

TEST_P(Generating, StepsMatchTheReferenceAndFullPasses) {
    const fs::path dir = kCheckpoints / GetParam();
    const auto m = model::loadModel(dir);
    const io::SafetensorsFile ref(dir / "generation_1.safetensors");
    const auto promptIds = testing::int64s(ref, "prompt_ids");
    const auto generated = testing::int64s(ref, "generated");
    const auto rows = testing::floats(ref, "rows");
    const auto chosen = testing::floats(ref, "chosen_prob");
    const auto logits = testing::floats(ref, "top_logits");
    const std::vector<std::int32_t> prompt(promptIds.begin(), promptIds.end());
    const auto steps = static_cast<int>(generated.size());
    const Generation g = generate(*m, prompt, steps);
    ASSERT_EQ(g.steps.size(), generated.size());
    const std::size_t heads = static_cast<std::size_t>(g.nLayers * g.nHeads);
    const std::size_t width = prompt.size() + generated.size() - 1;
    const auto vocab = static_cast<std::size_t>(m->spec.vocabSize);
    const std::vector<std::int32_t> all = g.tokens();
    for (std::size_t s = 0; s < g.steps.size(); ++s) {
        const GenerationStep& step = g.steps[s];
        EXPECT_EQ(step.token, generated[s]) << GetParam() << " step " << s;
        EXPECT_NEAR(step.probability, chosen[s], 1e-5);
        const auto keys = static_cast<std::size_t>(step.keys);
        ASSERT_EQ(keys, prompt.size() + s);
        double scale = 1.0;
        for (std::size_t v = 0; v < vocab; ++v) {
            scale = std::max(scale, std::abs(double(logits[s * vocab + v])));
        }
        for (std::size_t v = 0; v < vocab; ++v) {
            EXPECT_NEAR(step.logits[Eigen::Index(v)], logits[s * vocab + v], 1e-4 * scale);
        }
        // The same step by a full pass over the tokens so far: its last row of every head.
        const std::vector<std::int32_t> sofar(all.begin(), all.begin() + std::ptrdiff_t(keys));
        const ForwardResult full = runForward(*m, {sofar, {}});
        for (std::size_t h = 0; h < heads; ++h) {
            const HeadId id{int(h) / g.nHeads, int(h) % g.nHeads};
            for (std::size_t k = 0; k < keys; ++k) {
                const float ours = step.rows[h * keys + k];
                EXPECT_NEAR(ours, rows[(s * heads + h) * width + k], 1e-5)
                    << GetParam() << " step " << s << " head " << id.toString() << " key " << k;
                EXPECT_NEAR(ours, full.attention(id)(Eigen::Index(keys) - 1, Eigen::Index(k)),
                            1e-6);
            }
        }
    }
}

TEST_P(Generating, SamplingFiltersMatchLlamaCppsChain) {
    const fs::path dir = kCheckpoints / GetParam();
    const auto m = model::loadModel(dir);
    const io::SafetensorsFile ref(dir / "generation_1.safetensors");
    const auto promptIds = testing::int64s(ref, "prompt_ids");
    const auto dist = testing::floats(ref, "sample_dist");
    const auto settings = nlohmann::json::parse(ref.metadata().at("sample_settings"));
    const Generation g = generate(*m, {promptIds.begin(), promptIds.end()}, 1);
    const auto vocab = static_cast<std::size_t>(m->spec.vocabSize);
    for (std::size_t i = 0; i < settings.size(); ++i) {
        const SamplerSettings s{settings[i]["temperature"].get<float>(),
                                settings[i]["top_k"].get<int>(), settings[i]["top_p"].get<float>(),
                                0};
        const std::vector<double> ours = samplingDistribution(g.steps[0].logits, s);
        for (std::size_t v = 0; v < vocab; ++v) {
            EXPECT_NEAR(ours[v], dist[i * vocab + v], 1e-5) << GetParam() << " setting " << i;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Reference, Generating, ::testing::ValuesIn(kCases),
                         [](const auto& param) { return param.param; });

TEST(Generation, SeededSamplingRepeatsAndRefusesWhatItCannotDo) {
    const auto m = model::loadModel(kCheckpoints / "gpt2_f32");
    const SamplerSettings hot{1.5f, 0, 1.0f, 42};
    const Generation a = generate(*m, {1, 2, 3}, 5, hot);
    const Generation b = generate(*m, {1, 2, 3}, 5, hot);
    EXPECT_EQ(a.tokens(), b.tokens());
    // The positions run out: 21 positions, a prompt of 19 leaves room for two tokens.
    EXPECT_EQ(generate(*m, std::vector<std::int32_t>(19, 5), 6).steps.size(), 2u);
    testing::expectError<InvalidArgument>([&] { generate(*m, {1, 2}, 0); }, {"0 steps"});
    testing::expectError<InvalidArgument>(
        [&] {
            generate(*m, {1}, 1, {1.0f, 0, 0.0f, 0});
        },
        {"top_p", "is not in (0, 1]"});
    const auto bert = model::loadModel(kCheckpoints / "bert_f32");
    testing::expectError<InvalidArgument>(
        [&] {
            generate(*bert, {1, 2}, 1);
        },
        {"generation needs a causal LM"});
}

}  // namespace
}  // namespace attnscope::forward
