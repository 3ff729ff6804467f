// Rollout and flow against the independent reference (attribution_reference.py, rules A6–A8):
// the C++ runs its own forward pass on the reference's ids and must match its float64 maps within
// 1e-5 on a post-LN BERT, a pre-LN GPT-2 and a grouped-query Llama 3 (files written by
// run_attribution_expected.sh).
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/reference_file.h"
#include "attnscope/analysis/attention_flow.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(ATTNSCOPE_FIXTURE_DIR);
constexpr double kTol = 1e-5;

void expectClose(const analysis::LayerMaps& got, const std::vector<double>& want,
                 const std::string& what) {
    ASSERT_EQ(got.values.size(), want.size()) << what;
    double worst = 0;
    for (std::size_t k = 0; k < want.size(); ++k) {
        worst = std::max(worst, std::abs(got.values[k] - want[k]));
    }
    EXPECT_LE(worst, kTol) << what;
}

class AttributionParity : public ::testing::TestWithParam<std::string> {};

TEST_P(AttributionParity, RolloutAndFlowMatchTheReference) {
    const fs::path file = kFixtures / "attribution" / (GetParam() + ".safetensors");
    const io::SafetensorsFile reference(file);
    const std::vector<std::int64_t> ids64 = testing::int64s(reference, "input_ids");
    const std::vector<std::int32_t> ids(ids64.begin(), ids64.end());
    const auto model = model::loadModel(kFixtures / "checkpoints" / GetParam());
    const auto result = forward::runForward(*model, {ids, {}});
    const analysis::LayerMaps residual = analysis::residualAttention(*model, result);
    expectClose(analysis::rollout(residual), testing::doubles(reference, "rollout"), "rollout");
    expectClose(analysis::attentionFlow(residual), testing::doubles(reference, "flow"), "flow");
}

INSTANTIATE_TEST_SUITE_P(Fixtures, AttributionParity,
                         ::testing::Values("bert_f32", "gpt2_f32", "llama3_gqa4_f32"));

}  // namespace
}  // namespace attnscope
