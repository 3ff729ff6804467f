// computeAttribution's contract beyond the reference values (attribution_parity_test.cpp): what
// it refuses (no layer states, ablated passes, flow past its cap), the same maps whether the pass
// recorded its maps or the budget dropped them and whether half-precision weights stayed half,
// cancellation and progress, and the invariants of rules A5–A13 on every fixture architecture
// (rows sum to 1 or 0, causal maps lower triangular, forbidden cells 0 under a custom mask).
#include "attnscope/analysis/attribution.h"

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "attnscope/base/error.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"

namespace attnscope::analysis {
namespace {

namespace fs = std::filesystem;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

std::shared_ptr<const model::Model> load(
    const std::string& name, model::WeightPrecision weights = model::WeightPrecision::Auto) {
    model::LoadOptions options;
    options.weights = weights;
    return model::loadModel(kCheckpoints / name, options);
}

std::vector<std::int32_t> ids(int n, int first = 5) {
    std::vector<std::int32_t> out;
    for (int i = 0; i < n; ++i) {
        out.push_back(first + (i * 7) % 40);
    }
    return out;
}

forward::ForwardResult pass(const model::Model& m, int n, forward::ForwardOptions options = {}) {
    return forward::runForward(m, {ids(n), {}}, attributionPassOptions(std::move(options)));
}

constexpr AttributionMethod kDecomposing[] = {AttributionMethod::Norm, AttributionMethod::Alti,
                                              AttributionMethod::ValueZeroing};

TEST(Attribution, MethodNamesRoundTrip) {
    for (AttributionMethod m : kAttributionMethods) {
        EXPECT_EQ(parseAttributionMethod(attributionMethodName(m)), m);
        EXPECT_FALSE(attributionMethodTitle(m).empty());
    }
    EXPECT_EQ(parseAttributionMethod("value_zeroing"), std::nullopt);
    EXPECT_EQ(parseAttributionMethod(""), std::nullopt);
}

TEST(Attribution, DecomposingMethodsNeedLayerStates) {
    const auto m = load("gpt2_f32");
    const forward::ForwardResult plain = forward::runForward(*m, {ids(6), {}});
    for (AttributionMethod method : kDecomposing) {
        EXPECT_THROW(computeAttribution(*m, plain, method), InvalidArgument)
            << attributionMethodName(method);
    }
    EXPECT_NO_THROW(computeAttribution(*m, plain, AttributionMethod::Rollout));
}

TEST(Attribution, RefusesAnAblatedPass) {
    const auto m = load("gpt2_f32");
    forward::ForwardOptions options;
    options.interventions.ablations = {{0, 1, false, forward::AblationKind::Zero}};
    const forward::ForwardResult ablated = pass(*m, 6, options);
    try {
        computeAttribution(*m, ablated, AttributionMethod::Alti);
        FAIL() << "an ablated pass was explained";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("ablated"), std::string::npos) << e.what();
    }
}

TEST(Attribution, FlowRefusesMoreThanItsCapOthersDoNot) {
    // The shipped model: the fixtures have fewer positions than flow's cap.
    const auto m = model::loadModel(fs::path(ATTNSCOPE_SOURCE_DIR) / "resources" / "default_model");
    const forward::ForwardResult longPass = pass(*m, kFlowMaxTokens + 1);
    try {
        computeAttribution(*m, longPass, AttributionMethod::Flow);
        FAIL() << "flow ran past its cap";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("64"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(computeAttribution(*m, longPass, AttributionMethod::Alti));
}

void expectSameMaps(const Attribution& a, const Attribution& b, double tol,
                    const std::string& what) {
    ASSERT_EQ(a.layers.values.size(), b.layers.values.size()) << what;
    for (std::size_t k = 0; k < a.layers.values.size(); ++k) {
        ASSERT_NEAR(a.layers.values[k], b.layers.values[k], tol) << what << " at " << k;
    }
    ASSERT_EQ(a.heads.size(), b.heads.size()) << what;
    for (std::size_t k = 0; k < a.heads.size(); ++k) {
        ASSERT_NEAR(a.heads[k], b.heads[k], tol) << what << " head cell " << k;
    }
}

TEST(Attribution, SameMapsWhenTheBudgetDroppedTheRecordedMaps) {
    const auto m = load("llama3_gqa4_f32");
    forward::ForwardOptions tight;
    tight.mapBudgetBytes = 1;
    const forward::ForwardResult recorded = pass(*m, 9);
    const forward::ForwardResult summarized = pass(*m, 9, tight);
    ASSERT_FALSE(summarized.mapsRecorded);
    for (AttributionMethod method : kAttributionMethods) {
        // Recomputed heads equal recorded ones bit for bit (head_record.h), so the maps do too.
        expectSameMaps(computeAttribution(*m, recorded, method),
                       computeAttribution(*m, summarized, method), 0.0,
                       attributionMethodName(method));
    }
}

TEST(Attribution, HalfPrecisionWeightsKeptHalfGiveTheSameMaps) {
    const auto wide = load("qwen2_gqa2_bf16", model::WeightPrecision::Float32);
    const auto half = load("qwen2_gqa2_bf16", model::WeightPrecision::AsStored);
    const forward::ForwardResult a = pass(*wide, 7);
    const forward::ForwardResult b = pass(*half, 7);
    for (AttributionMethod method : kDecomposing) {
        expectSameMaps(computeAttribution(*wide, a, method), computeAttribution(*half, b, method),
                       1e-6, attributionMethodName(method));
    }
}

TEST(Attribution, CancelledBeforeItStarts) {
    const auto m = load("bert_f32");
    const forward::ForwardResult p = pass(*m, 8);
    AttributionOptions options;
    options.cancel.cancel();
    for (AttributionMethod method : kDecomposing) {
        EXPECT_THROW(computeAttribution(*m, p, method, options), Cancelled);
    }
    EXPECT_THROW(computeAttribution(*m, p, AttributionMethod::Flow, options), Cancelled);
}

TEST(Attribution, ProgressRisesAtLeastOncePerLayerToOne) {
    const auto m = load("bert_f32");
    const forward::ForwardResult p = pass(*m, 8);
    for (AttributionMethod method : {AttributionMethod::Norm, AttributionMethod::Alti,
                                     AttributionMethod::ValueZeroing, AttributionMethod::Flow}) {
        std::vector<double> seen;
        AttributionOptions options;
        options.progress = [&seen](double f) { seen.push_back(f); };
        computeAttribution(*m, p, method, options);
        const std::string what = attributionMethodName(method);
        ASSERT_GE(seen.size(), static_cast<std::size_t>(p.nLayers)) << what;
        for (std::size_t k = 1; k < seen.size(); ++k) {
            EXPECT_GT(seen[k], seen[k - 1]) << what;
        }
        EXPECT_NEAR(seen.back(), 1.0, 1e-12) << what;
    }
}

bool causal(const BoolMatrix& allowed) {
    for (Eigen::Index i = 0; i < allowed.rows(); ++i) {
        for (Eigen::Index j = i + 1; j < allowed.cols(); ++j) {
            if (allowed(i, j) != 0) {
                return false;
            }
        }
    }
    return true;
}

// Rows sum to 1 (value zeroing: 1 or 0), masked cells are 0, nothing is negative or NaN.
void expectStochastic(const Attribution& a, const BoolMatrix& allowed, bool cumulative) {
    const int n = a.nTokens;
    const std::string what = attributionMethodName(a.method);
    for (int l = 0; l < a.nLayers; ++l) {
        for (int i = 0; i < n; ++i) {
            double sum = 0;
            for (int j = 0; j < n; ++j) {
                const double v = a.layer(l)[i * n + j];
                ASSERT_TRUE(v >= 0) << what << " layer " << l << " cell " << i << "," << j;
                // A cumulative map mixes through other tokens: only a causal mask (nothing
                // reaches back from the future) still holds for it.
                const bool forbidden = cumulative ? j > i && allowed(i, j) == 0 && causal(allowed)
                                                  : allowed(i, j) == 0;
                if (forbidden) {
                    ASSERT_EQ(v, 0.0) << what << " forbidden cell " << i << "," << j;
                }
                sum += v;
            }
            if (a.method == AttributionMethod::ValueZeroing && sum == 0) {
                continue;
            }
            ASSERT_NEAR(sum, 1.0, 1e-6) << what << " layer " << l << " row " << i;
        }
    }
}

class AttributionInvariants : public ::testing::TestWithParam<std::string> {};

TEST_P(AttributionInvariants, RowsAndMasks) {
    const auto m = load(GetParam());
    const forward::ForwardResult p = pass(*m, 11);
    for (AttributionMethod method :
         {AttributionMethod::Raw, AttributionMethod::Rollout, AttributionMethod::Flow,
          AttributionMethod::Alti, AttributionMethod::ValueZeroing}) {
        expectStochastic(computeAttribution(*m, p, method), p.allowed, isCumulative(method));
    }
    const Attribution norm = computeAttribution(*m, p, AttributionMethod::Norm);
    const int n = p.nTokens;
    for (int l = 0; l < p.nLayers; ++l) {
        for (int h = 0; h < p.nHeads; ++h) {
            for (int c = 0; c < n * n; ++c) {
                const double want =
                    static_cast<double>(p.attention({l, h}).data()[c]) *
                    norm.transformedNorm[static_cast<std::size_t>((l * p.nHeads + h) * n + c % n)];
                ASSERT_NEAR(norm.head(l, h)[c], want, 1e-6 * std::max(1.0, want));  // A5
            }
        }
    }
}

TEST_P(AttributionInvariants, CustomMaskForbiddenCellsStayZero) {
    const auto m = load(GetParam());
    forward::ForwardOptions options;
    options.mask.kind = forward::MaskKind::Custom;
    BoolMatrix allowed = BoolMatrix::Ones(8, 8);
    for (int i = 0; i < 8; ++i) {
        allowed(i, (i + 3) % 8) = 0;  // every row keeps itself, loses one other key
    }
    options.mask.custom = allowed;
    const forward::ForwardResult p = pass(*m, 8, options);
    for (AttributionMethod method :
         {AttributionMethod::Raw, AttributionMethod::Alti, AttributionMethod::ValueZeroing}) {
        const Attribution a = computeAttribution(*m, p, method);
        expectStochastic(a, p.allowed, method == AttributionMethod::Alti);
        if (method == AttributionMethod::Alti) {
            // Layer 0's own contributions see the mask directly (A11: masked keys give c = 0).
            for (int i = 0; i < 8; ++i) {
                EXPECT_EQ(a.perLayer.layer(0)[i * 8 + (i + 3) % 8], 0.0);
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, AttributionInvariants,
                         ::testing::Values("bert_f32", "roberta_f32", "distilbert_f16", "gpt2_f32",
                                           "llama_f32", "mistral_mqa_window_f32",
                                           "qwen2_gqa2_bf16"));

}  // namespace
}  // namespace attnscope::analysis
