// Head ablation against the independent PyTorch reference (issue 17): for every fixture
// architecture, a pass with a zero-ablated query head and a sink-ablated key/value group, and one
// with mean ablations whose means both sides pool over the same two sentences, must give the
// reference's attention (1e-5) and prediction logits (1e-4 relative). The references are written
// by tests/reference/run_ablation_expected.sh (CTest fixture ablation_expected).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/reference_file.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/interventions.h"
#include "attnscope/forward/prediction.h"
#include "attnscope/io/safetensors.h"
#include "attnscope/model/model.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(ATTNSCOPE_FIXTURE_DIR);
// The ids and the mean corpus run_ablation_expected.sh gives the reference.
const std::vector<std::int32_t> kIds = {3, 17, 9, 4, 12, 8, 21, 5, 2, 30, 11};
const std::vector<std::vector<std::int32_t>> kMeanCorpus = {{3, 17, 9, 4, 12, 8},
                                                            {21, 5, 2, 30, 11, 7, 6}};

double maxAbsDiff(const float* a, const std::vector<float>& b) {
    double worst = 0;
    for (std::size_t i = 0; i < b.size(); ++i) {
        worst = std::max(worst, std::abs(static_cast<double>(a[i]) - b[i]));
    }
    return worst;
}

double maxAbs(const std::vector<float>& v) {
    double worst = 0;
    for (const float x : v) {
        worst = std::max(worst, std::abs(static_cast<double>(x)));
    }
    return worst;
}

forward::Interventions parse(
    std::initializer_list<std::pair<const char*, forward::AblationKind>> items) {
    forward::Interventions out;
    for (const auto& [list, kind] : items) {
        for (const forward::HeadAblation& a : forward::parseAblationList(list, kind)) {
            out.ablations.push_back(a);
        }
    }
    return out;
}

// The ablated pass against the reference file's ablated attention and prediction logits.
void expectMatches(const model::Model& model, const forward::ForwardOptions& options,
                   const fs::path& file) {
    const io::SafetensorsFile f(file);
    const std::string what = file.filename().string();
    const auto r = forward::runForward(model, {kIds, {}}, options);
    const std::vector<float> attention = testing::floats(f, "ablated_attention");
    ASSERT_EQ(r.probs.size(), attention.size()) << what;
    EXPECT_LE(maxAbsDiff(r.probs.data(), attention), 1e-5) << what;
    if (forward::hasPredictionHead(model)) {
        const std::vector<float> expected = testing::floats(f, "ablated_lm_logits");
        const Matrix lm = forward::vocabularyLogits(model, r.hidden);
        ASSERT_EQ(static_cast<std::size_t>(lm.size()), expected.size()) << what;
        EXPECT_LE(maxAbsDiff(lm.data(), expected) / std::max(1.0, maxAbs(expected)), 1e-4) << what;
    }
    // The reference's clean pass too, so a difference above is the ablation's, not the model's.
    const auto clean = forward::runForward(model, {kIds, {}});
    EXPECT_LE(maxAbsDiff(clean.probs.data(), testing::floats(f, "clean_attention")), 1e-5) << what;
}

class AblationParity : public ::testing::TestWithParam<std::string> {};

TEST_P(AblationParity, ZeroAndSinkMatchPyTorch) {
    const auto model = model::loadModel(kFixtures / "checkpoints" / GetParam());
    forward::ForwardOptions options;
    options.interventions =
        parse({{"0-1", forward::AblationKind::Zero}, {"1-g0", forward::AblationKind::Sink}});
    expectMatches(*model, options,
                  kFixtures / "ablation" / (GetParam() + ".zero_sink.safetensors"));
}

TEST_P(AblationParity, MeanMatchesPyTorch) {
    const auto model = model::loadModel(kFixtures / "checkpoints" / GetParam());
    const fs::path file = kFixtures / "ablation" / (GetParam() + ".mean.safetensors");
    auto means =
        std::make_shared<forward::HeadMeans>(forward::computeHeadMeans(*model, kMeanCorpus, {}));
    // The means themselves: pooled over every position of both sentences on both sides.
    const std::vector<float> expected = testing::floats(io::SafetensorsFile(file), "mean_vectors");
    ASSERT_EQ(means->values.size(), expected.size());
    EXPECT_LE(maxAbsDiff(means->values.data(), expected) / std::max(1.0, maxAbs(expected)), 1e-6);
    forward::ForwardOptions options;
    options.interventions =
        parse({{"1-0", forward::AblationKind::Mean}, {"0-g0", forward::AblationKind::Mean}});
    options.interventions.means = means;
    expectMatches(*model, options, file);
}

INSTANTIATE_TEST_SUITE_P(Checkpoints, AblationParity,
                         ::testing::Values("bert_f32", "gpt2_f32", "roberta_f32", "distilbert_f16",
                                           "llama3_gqa4_f32", "qwen2_gqa2_bf16",
                                           "mistral_mqa_window_f32"));

}  // namespace
}  // namespace attnscope
