// Every attribution method against the independent reference (attribution_reference.py, rules
// A1–A15): the C++ runs its own forward pass on the reference's ids and must match its float64
// maps on a post-LN BERT, a pre-LN GPT-2, a grouped-query Llama 3 and the GPT-2 with 36 times
// larger transformed values (files written by run_attribution_expected.sh). Probabilities and
// the maps whose rows are shares within 1e-5; the norm-based maps, which are sizes, within
// 1e-5 × max(1, ‖f^h(x_j)‖) at key j (A2: a float32 pass's error grows with ‖f‖).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/fixture_model.h"
#include "../support/reference_file.h"
#include "attnscope/analysis/attribution.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;
using analysis::AttributionMethod;

constexpr double kTol = 1e-5;

// The tolerance of flat index k: kTol, or kTol times the scale A2 gives the cell.
using Scale = std::function<double(std::size_t)>;

// The worst |got − want| / scale, and where.
template <class Values>
void expectClose(const Values& got, const std::vector<double>& want, const std::string& what,
                 const Scale& scale = {}) {
    ASSERT_EQ(got.size(), want.size()) << what;
    double worst = 0;
    std::size_t at = 0;
    for (std::size_t k = 0; k < want.size(); ++k) {
        const double gap = std::abs(static_cast<double>(got[k]) - want[k]) / (scale ? scale(k) : 1);
        if (!(gap <= worst)) {
            worst = gap;
            at = k;
        }
    }
    EXPECT_LE(worst, kTol) << what << " at flat index " << at << (scale ? " (scaled, A2)" : "");
}

// The checkpoint of a case: the fixtures' own, or the one run_attribution_expected.sh wrote
// beside its references (the large-values GPT-2).
fs::path checkpointOf(const std::string& name) {
    const fs::path own = testing::kFixtureDir / "attribution" / "checkpoints" / name;
    return fs::exists(own) ? own : testing::kFixtureCheckpoints / name;
}

class AttributionParity : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        const fs::path file = testing::kFixtureDir / "attribution" / (GetParam() + ".safetensors");
        reference = std::make_unique<io::SafetensorsFile>(file);
        const std::vector<std::int64_t> ids64 = testing::int64s(*reference, "input_ids");
        const std::vector<std::int32_t> ids(ids64.begin(), ids64.end());
        model = model::loadModel(checkpointOf(GetParam()));
        pass = forward::runForward(*model, {ids, {}}, analysis::attributionPassOptions({}));
    }

    analysis::Attribution run(AttributionMethod method) const {
        return analysis::computeAttribution(*model, pass, method);
    }

    std::vector<double> want(const std::string& name) const {
        return testing::doubles(*reference, name);
    }

    // A2's scale of a norm-based output, max(1, ‖f‖) from the reference's transformed_norm
    // [L, H, n]: per (layer, head, key) for norm_head and transformed_norm, the largest over
    // heads for norm_layer.
    Scale headScale(bool perCell) const {
        const auto n = static_cast<std::size_t>(pass.nTokens);
        auto norms = std::make_shared<std::vector<double>>(want("transformed_norm"));
        return [norms, n, perCell](std::size_t k) {
            // norm_head [L, H, n, n]: drop the query; transformed_norm [L, H, n]: as it is.
            const std::size_t lhj = perCell ? (k / (n * n)) * n + k % n : k;
            return std::max(1.0, (*norms)[lhj]);
        };
    }

    Scale layerScale() const {
        const auto n = static_cast<std::size_t>(pass.nTokens);
        const auto heads = static_cast<std::size_t>(pass.nHeads);
        auto norms = std::make_shared<std::vector<double>>(want("transformed_norm"));
        return [norms, n, heads](std::size_t k) {
            const std::size_t layer = k / (n * n);
            const std::size_t key = k % n;
            double largest = 1.0;
            for (std::size_t h = 0; h < heads; ++h) {
                largest = std::max(largest, (*norms)[(layer * heads + h) * n + key]);
            }
            return largest;
        };
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
    expectClose(a.heads, want("norm_head"), "norm_head", headScale(true));
    expectClose(a.layers.values, want("norm_layer"), "norm_layer", layerScale());
    expectClose(a.transformedNorm, want("transformed_norm"), "transformed_norm", headScale(false));
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
    // A10's bound is 1e-5 × max(1, max |y|), checked at run time (computeAttribution throws
    // beyond it); the small fixtures meet 1e-5 outright. The large-values GPT-2's attention
    // outputs are 36 times larger, and so is the rounding of their sum.
    const double bound = GetParam() == std::string("gpt2_f32_values_x6") ? 36 * 1e-5 : 1e-5;
    for (double e : a.reconstructionError) {
        EXPECT_LE(e, bound);
    }
}

TEST_P(AttributionParity, ValueZeroing) {
    const analysis::Attribution a = run(AttributionMethod::ValueZeroing);
    expectClose(a.perLayer.values, want("value_zeroing_raw"), "value_zeroing_raw");
    expectClose(a.layers.values, want("value_zeroing"), "value_zeroing");
}

// The last layer on its own: pre-LN models compare it after the model's final norm, as inseq
// does (A12); a C++ comparing the layer's output before that norm is off by up to 0.06 here.
TEST_P(AttributionParity, ValueZeroingLastLayerFollowsInseq) {
    const analysis::Attribution a = run(AttributionMethod::ValueZeroing);
    const auto cells = static_cast<std::size_t>(a.nTokens) * static_cast<std::size_t>(a.nTokens);
    const auto last = static_cast<std::ptrdiff_t>(static_cast<std::size_t>(a.nLayers - 1) * cells);
    for (const char* name : {"value_zeroing_raw", "value_zeroing"}) {
        const std::vector<double> all = want(name);
        const std::vector<double> expected(all.begin() + last, all.end());
        const auto& got = std::string(name) == "value_zeroing" ? a.layers : a.perLayer;
        const std::vector<double> lastLayer(got.values.begin() + last, got.values.end());
        expectClose(lastLayer, expected, std::string(name) + ", last layer");
    }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, AttributionParity,
                         ::testing::Values("bert_f32", "gpt2_f32", "llama3_gqa4_f32",
                                           "gpt2_f32_values_x6"));

// The large-values case does what it is for: the reference's own float32 run misses an
// absolute 1e-5 on it (so the scaled bound above is the one that holds), while its scaled
// gap stays within 1e-5.
TEST(AttributionParityLargeValues, AbsoluteBoundFailsScaledHolds) {
    const io::SafetensorsFile reference(testing::kFixtureDir / "attribution" /
                                        "gpt2_f32_values_x6.safetensors");
    const auto& meta = reference.metadata();
    ASSERT_TRUE(meta.count("max_abs_diff_float32_norm_head"));
    ASSERT_TRUE(meta.count("max_scaled_diff_float32_norm_head"));
    EXPECT_GT(std::stod(meta.at("max_abs_diff_float32_norm_head")), 1e-5);
    EXPECT_LE(std::stod(meta.at("max_scaled_diff_float32_norm_head")), 1e-5);
    const std::vector<double> norms = testing::doubles(reference, "transformed_norm");
    EXPECT_GT(*std::max_element(norms.begin(), norms.end()), 100.0);
}

}  // namespace
}  // namespace attnscope
