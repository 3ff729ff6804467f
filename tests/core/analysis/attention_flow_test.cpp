// Rollout and flow (attention_flow.h, rules A6–A8 of attribution_reference.py) on cases worked
// out by hand: methods.md §5.1's rollout golden, attribution_selftest.py's two-token flow that
// differs from rollout, CLRS's max-flow network, the length cap, and a model's maps recorded or
// recomputed.
#include "attnscope/analysis/attention_flow.h"

#include <cmath>
#include <filesystem>
#include <vector>

#include <gtest/gtest.h>

#include "attnscope/base/error.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"

namespace attnscope::analysis {
namespace {

// Rows of `raw` divided by their sums, as float maps (what a forward pass records).
std::vector<float> stochastic(const std::vector<std::vector<double>>& raw) {
    std::vector<float> out;
    for (const auto& row : raw) {
        double sum = 0;
        for (const double v : row) {
            sum += v;
        }
        for (const double v : row) {
            out.push_back(static_cast<float>(v / sum));
        }
    }
    return out;
}

void expectRow(const LayerMaps& m, int layer, int row, const std::vector<double>& want,
               double tol) {
    const double* r = m.layer(layer) + static_cast<std::size_t>(row * m.nTokens);
    for (int j = 0; j < m.nTokens; ++j) {
        EXPECT_NEAR(r[j], want[static_cast<std::size_t>(j)], tol)
            << "layer " << layer << " row " << row << " column " << j;
    }
}

TEST(AttentionRollout, MethodsGolden) {
    std::vector<std::vector<double>> a1(4, std::vector<double>(4));
    std::vector<std::vector<double>> a2(4, std::vector<double>(4));
    for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 4; ++j) {
            a1[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = 1 + (i + 2 * j) % 4;
            a2[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = 1 + (3 * i + j) % 5;
        }
    }
    const auto m1 = stochastic(a1);
    const auto m2 = stochastic(a2);
    const LayerMaps r = rollout(residualAttention({m1.data(), m2.data()}, 2, 1, 4));
    expectRow(r, 1, 0, {0.379167, 0.195833, 0.179167, 0.245833}, 5e-7);
    expectRow(r, 0, 0, {0.5625, 0.1875, 0.0625, 0.1875}, 1e-7);  // (A1 row 0 + e_0) / 2
}

TEST(AttentionRollout, HeadsAreAveragedAndIdentityStaysIdentity) {
    const std::vector<float> eye = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    const std::vector<float> uniform(9, 1.0f / 3);
    const LayerMaps self = rollout(residualAttention({eye.data(), eye.data()}, 2, 1, 3));
    for (int l = 0; l < 2; ++l) {
        for (int i = 0; i < 3; ++i) {
            expectRow(self, l, i, {i == 0 ? 1.0 : 0.0, i == 1 ? 1.0 : 0.0, i == 2 ? 1.0 : 0.0}, 0);
        }
    }
    // Two heads, identity and uniform: Ā = (I + U) / 2, Ã = (Ā + I) / 2.
    const LayerMaps mixed = residualAttention({eye.data(), uniform.data()}, 1, 2, 3);
    expectRow(mixed, 0, 0, {0.75 + 1.0 / 12, 1.0 / 12, 1.0 / 12}, 1e-8);  // 1/3 as a float
    EXPECT_THROW(residualAttention({eye.data()}, 1, 2, 3), InvalidArgument);
}

// attribution_selftest.py's flow_golden: two tokens, three layers of one head.
TEST(AttentionFlow, TwoTokenGoldenDiffersFromRollout) {
    const std::vector<float> a0 = {1, 0, 1, 0};
    const std::vector<float> a1 = {0, 1, 0, 1};
    const std::vector<float> a2 = {0, 1, 1, 0};
    const LayerMaps residual = residualAttention({a0.data(), a1.data(), a2.data()}, 3, 1, 2);
    const LayerMaps flow = attentionFlow(residual);
    expectRow(flow, 0, 0, {1.0, 0.0}, 1e-12);  // flow[0] = Ã_0
    expectRow(flow, 0, 1, {0.5, 0.5}, 1e-12);
    expectRow(flow, 1, 0, {2.0 / 3, 1.0 / 3}, 1e-12);
    expectRow(flow, 1, 1, {0.5, 0.5}, 1e-12);
    expectRow(flow, 2, 0, {2.0 / 3, 1.0 / 3}, 1e-12);
    expectRow(flow, 2, 1, {2.0 / 3, 1.0 / 3}, 1e-12);
    const LayerMaps roll = rollout(residual);
    expectRow(roll, 1, 0, {0.75, 0.25}, 1e-12);
    expectRow(roll, 2, 0, {0.625, 0.375}, 1e-12);
}

TEST(AttentionFlow, MaxFlowOfTheTextbookNetwork) {
    // CLRS figure 26.1: s=0, v1..v4 = 1..4, t=5; the maximum flow is 23.
    std::vector<double> c(36, 0.0);
    const auto edge = [&c](int u, int v, double cap) {
        c[static_cast<std::size_t>(u * 6 + v)] = cap;
    };
    edge(0, 1, 16);
    edge(0, 2, 13);
    edge(2, 1, 4);
    edge(1, 3, 12);
    edge(3, 2, 9);
    edge(2, 4, 14);
    edge(4, 3, 7);
    edge(3, 5, 20);
    edge(4, 5, 4);
    EXPECT_DOUBLE_EQ(maxFlow(c, 6, 0, 5), 23.0);
    EXPECT_DOUBLE_EQ(maxFlow(c, 6, 5, 0), 0.0);
    EXPECT_THROW(maxFlow(c, 5, 0, 4), InvalidArgument);
}

TEST(AttentionFlow, LongerThanTheCapIsAnErrorNamingBoth) {
    const int n = kFlowMaxTokens + 1;
    const std::vector<float> eye = [n] {
        std::vector<float> m(static_cast<std::size_t>(n * n), 0.0f);
        for (int i = 0; i < n; ++i) {
            m[static_cast<std::size_t>(i * n + i)] = 1.0f;
        }
        return m;
    }();
    const LayerMaps residual = residualAttention({eye.data()}, 1, 1, n);
    try {
        attentionFlow(residual);
        FAIL() << "flow ran on " << n << " tokens";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("65 tokens"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("64"), std::string::npos) << e.what();
    }
}

TEST(AttentionFlow, ModelMapsRecordedOrRecomputedGiveTheSameRollout) {
    const auto m =
        model::loadModel(std::filesystem::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints" / "gpt2_f32");
    const std::vector<std::int32_t> ids = {556, 300, 301, 302, 11, 300, 301, 13};
    forward::ForwardOptions lean;
    lean.mapBudgetBytes = 0;  // no maps kept: every head recomputed
    const auto full = forward::runForward(*m, {ids, {}});
    const auto dropped = forward::runForward(*m, {ids, {}}, lean);
    ASSERT_FALSE(dropped.mapsRecorded);
    const LayerMaps a = rollout(residualAttention(*m, full));
    const LayerMaps b = rollout(residualAttention(*m, dropped));
    EXPECT_EQ(a.values, b.values);
    // Causal: rows stochastic, nothing above the diagonal.
    const int n = a.nTokens;
    for (int i = 0; i < n; ++i) {
        double sum = 0;
        for (int j = 0; j < n; ++j) {
            const double v = a.layer(a.nLayers - 1)[static_cast<std::size_t>(i * n + j)];
            sum += v;
            if (j > i) {
                EXPECT_EQ(v, 0.0);
            }
        }
        EXPECT_NEAR(sum, 1.0, 1e-12);
    }
    const LayerMaps f = attentionFlow(residualAttention(*m, full));
    for (int i = 0; i < n; ++i) {
        for (int j = i + 1; j < n; ++j) {
            EXPECT_EQ(f.layer(1)[static_cast<std::size_t>(i * n + j)], 0.0);
        }
    }
}

}  // namespace
}  // namespace attnscope::analysis
