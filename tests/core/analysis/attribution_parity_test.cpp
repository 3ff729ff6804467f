// Every attribution method against the independent reference (attribution_reference.py, rules
// A1–A15): the C++ runs its own forward pass on the reference's ids and must match its float64
// maps within 1e-5 on a post-LN BERT, a pre-LN GPT-2 and a grouped-query Llama 3 (files written
// by run_attribution_expected.sh).
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/reference_file.h"
#include "attnscope/analysis/attribution.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;
using analysis::AttributionMethod;

const fs::path kFixtures = fs::path(ATTNSCOPE_FIXTURE_DIR);
constexpr double kTol = 1e-5;

template <class Values>
void expectClose(const Values& got, const std::vector<double>& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    double worst = 0;
    std::size_t at = 0;
    for (std::size_t k = 0; k < want.size(); ++k) {
        const double gap = std::abs(static_cast<double>(got[k]) - want[k]);
        if (!(gap <= worst)) {
            worst = gap;
            at = k;
        }
    }
    EXPECT_LE(worst, kTol) << what << " at flat index " << at;
}

class AttributionParity : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        const fs::path file = kFixtures / "attribution" / (GetParam() + ".safetensors");
        reference = std::make_unique<io::SafetensorsFile>(file);
        const std::vector<std::int64_t> ids64 = testing::int64s(*reference, "input_ids");
        const std::vector<std::int32_t> ids(ids64.begin(), ids64.end());
        model = model::loadModel(kFixtures / "checkpoints" / GetParam());
        pass = forward::runForward(*model, {ids, {}}, analysis::attributionPassOptions({}));
    }

    analysis::Attribution run(AttributionMethod method) const {
        return analysis::computeAttribution(*model, pass, method);
    }

    std::vector<double> want(const std::string& name) const {
        return testing::doubles(*reference, name);
    }

    std::unique_ptr<io::SafetensorsFile> reference;
    std::shared_ptr<const model::Model> model;
    forward::ForwardResult pass;
};

TEST_P(AttributionParity, RawAttentionIsThePassesProbabilities) {
    const analysis::Attribution a = run(AttributionMethod::Raw);
    expectClose(a.heads, want("attention"), "attention");
}

TEST_P(AttributionParity, NormBased) {
    const analysis::Attribution a = run(AttributionMethod::Norm);
    expectClose(a.heads, want("norm_head"), "norm_head");
    expectClose(a.layers.values, want("norm_layer"), "norm_layer");
    expectClose(a.transformedNorm, want("transformed_norm"), "transformed_norm");
}

TEST_P(AttributionParity, RolloutAndFlow) {
    expectClose(run(AttributionMethod::Rollout).layers.values, want("rollout"), "rollout");
    const analysis::Attribution flow = run(AttributionMethod::Flow);
    expectClose(flow.layers.values, want("flow"), "flow");
    expectClose(flow.perLayer.values, want("flow_raw"), "flow_raw");
}

TEST_P(AttributionParity, Alti) {
    const analysis::Attribution a = run(AttributionMethod::Alti);
    expectClose(a.layers.values, want("alti"), "alti");
    expectClose(a.perLayer.values, want("alti_layer"), "alti_layer");
    ASSERT_EQ(a.reconstructionError.size(), static_cast<std::size_t>(a.nLayers));
    for (double e : a.reconstructionError) {
        EXPECT_LE(e, 1e-5);  // A10, float32
    }
}

TEST_P(AttributionParity, ValueZeroing) {
    const analysis::Attribution a = run(AttributionMethod::ValueZeroing);
    expectClose(a.perLayer.values, want("value_zeroing_raw"), "value_zeroing_raw");
    expectClose(a.layers.values, want("value_zeroing"), "value_zeroing");
}

INSTANTIATE_TEST_SUITE_P(Fixtures, AttributionParity,
                         ::testing::Values("bert_f32", "gpt2_f32", "llama3_gqa4_f32"));

}  // namespace
}  // namespace attnscope
