// Effect measures of an ablation (issue 17, methods.md §11.7): the per-head Jensen–Shannon change
// on hand-built maps with known values, and on fixture checkpoints the invariants the definitions
// imply (no ablation changes nothing, KL >= 0, a last-layer ablation touches only its layer, NLL
// and Δ log p equal a hand computation from the vocabulary logits) and the refused requests.
#include "attnscope/analysis/ablation_effects.h"

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "../support/fixture_model.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/prediction.h"
#include "attnscope/model/model.h"

namespace attnscope {
namespace {

using testing::fixtureModel;

using analysis::headJsChange;
using analysis::measureAblation;
using forward::AblationKind;
using forward::ForwardResult;

const std::vector<std::int32_t> kIds = {3, 17, 9, 4, 12, 8, 21, 5, 2, 30, 11};

forward::ForwardOptions ablating(const std::string& list, AblationKind kind) {
    forward::ForwardOptions o;
    o.interventions.ablations = forward::parseAblationList(list, kind);
    return o;
}

// A result of nLayers x 1 head over 2 tokens whose maps are `probs` (one head per 4 values).
ForwardResult handBuilt(const std::vector<float>& probs) {
    ForwardResult r;
    r.nHeads = 1;
    r.nTokens = 2;
    r.nLayers = static_cast<int>(probs.size() / 4);
    r.tokenIds = {1, 2};
    r.probs.assign(probs.begin(), probs.end());
    r.logits.assign(probs.size(), 0.0f);
    return r;
}

// The message of the InvalidArgument `f` throws; fails the test when it throws none.
template <class F>
std::string invalidMessage(F&& f) {
    return testing::errorMessage<InvalidArgument>(std::forward<F>(f));
}

TEST(HeadJsChange, KnownValuesOnHandBuiltMaps) {
    const auto m = fixtureModel("bert_f32");  // the maps are recorded: the model is not consulted
    // Row 0 moves all its weight to the other key (JS = ln 2); row 1 is unchanged (JS = 0).
    const ForwardResult clean = handBuilt({1, 0, 0.5f, 0.5f});
    const ForwardResult moved = handBuilt({0, 1, 0.5f, 0.5f});
    const auto js = analysis::headJsChange(*m, clean, moved);
    ASSERT_EQ(js.size(), 1u);
    EXPECT_NEAR(js[0], std::log(2.0) / 2, 1e-15);
    // Half of row 0's weight moved: JS of (1, 0) and (0.5, 0.5) against their mean (0.75, 0.25).
    const ForwardResult half = handBuilt({0.5f, 0.5f, 0.5f, 0.5f});
    const double p = 1.0;
    const double expected = 0.5 * (p * std::log(1.0 / 0.75)) +
                            0.5 * (0.5 * std::log(0.5 / 0.75) + 0.5 * std::log(0.5 / 0.25));
    EXPECT_NEAR(analysis::headJsChange(*m, clean, half)[0], expected / 2, 1e-15);
}

TEST(HeadJsChange, RowsWithoutMassAreLeftOutAndNoneLeftIsNaN) {
    const auto m = fixtureModel("bert_f32");
    const ForwardResult clean = handBuilt({1, 0, 0.5f, 0.5f});
    // Row 0 zero-ablated: only row 1 counts, and it moved fully onto key 0.
    const auto oneRow = analysis::headJsChange(*m, clean, handBuilt({0, 0, 1, 0}));
    const double js1 = 0.5 * (0.5 * std::log(0.5 / 0.75) + 0.5 * std::log(0.5 / 0.25)) +
                       0.5 * std::log(1.0 / 0.75);
    EXPECT_NEAR(oneRow[0], js1, 1e-15);
    // A zero-ablated head: no row left.
    EXPECT_TRUE(std::isnan(analysis::headJsChange(*m, clean, handBuilt({0, 0, 0, 0}))[0]));
    // A fully masked query row on the clean side is left out too.
    EXPECT_EQ(analysis::headJsChange(*m, handBuilt({0, 0, 0.5f, 0.5f}),
                                     handBuilt({0.3f, 0.7f, 0.5f, 0.5f}))[0],
              0.0);
    // NaN in a map propagates, as in the reference (the row is kept).
    const float nan = std::numeric_limits<float>::quiet_NaN();
    EXPECT_TRUE(std::isnan(analysis::headJsChange(*m, clean, handBuilt({nan, 0, 0.5f, 0.5f}))[0]));
}

TEST(HeadJsChange, LayersBelowTheFirstAblatedOneAreZeroWithoutComputing) {
    const auto m = fixtureModel("bert_f32");
    // Layer 0 differs, but the ablated pass says its first ablation is in layer 1: the maps
    // below are by construction identical, so layer 0 is not compared at all.
    const ForwardResult clean = handBuilt({1, 0, 0.5f, 0.5f, 1, 0, 0.5f, 0.5f});
    ForwardResult ablated = handBuilt({0, 1, 0.5f, 0.5f, 0, 1, 0.5f, 0.5f});
    ablated.ablated = {std::nullopt, AblationKind::Sink};
    const auto js = analysis::headJsChange(*m, clean, ablated);
    EXPECT_EQ(js[0], 0.0);
    EXPECT_NEAR(js[1], std::log(2.0) / 2, 1e-15);
}

TEST(HeadJsChange, RefusesPassesOfDifferentInputs) {
    const auto m = fixtureModel("bert_f32");
    ForwardResult other = handBuilt({1, 0, 0.5f, 0.5f});
    other.tokenIds = {1, 3};
    EXPECT_NE(invalidMessage([&] {
                  analysis::headJsChange(*m, handBuilt({1, 0, 0.5f, 0.5f}), other);
              }).find("different token ids"),
              std::string::npos);
    const std::string shape = invalidMessage([&] {
        analysis::headJsChange(*m, handBuilt({1, 0, 0.5f, 0.5f}),
                               handBuilt({1, 0, 0.5f, 0.5f, 1, 0, 0.5f, 0.5f}));
    });
    EXPECT_NE(shape.find("1 layers x 1 heads x 2 tokens, the ablated one 2 layers"),
              std::string::npos)
        << shape;
}

TEST(AblationEffects, NoAblationChangesNothing) {
    for (const char* name : {"bert_f32", "gpt2_f32", "llama3_gqa4_f32"}) {
        const auto m = fixtureModel(name);
        const ForwardResult a = forward::runForward(*m, {kIds, {}});
        const ForwardResult b = forward::runForward(*m, {kIds, {}});
        const auto e = measureAblation(*m, a, b);
        for (const double js : e.js) {
            EXPECT_EQ(js, 0.0) << name;
        }
        if (e.causal) {
            EXPECT_EQ(e.causal->deltaNll, 0.0) << name;
            for (std::size_t i = 0; i < e.causal->kl.size(); ++i) {
                EXPECT_EQ(e.causal->kl[i], 0.0) << name << " position " << i;
                EXPECT_EQ(e.causal->deltaPTop[i], 0.0) << name << " position " << i;
            }
        }
    }
}

// Ablating a last-layer head changes no map below or beside it: only that head's JS moves.
TEST(AblationEffects, LastLayerAblationChangesOnlyThatHead) {
    for (const char* name : {"gpt2_f32", "llama3_gqa4_f32", "bert_f32"}) {
        const auto m = fixtureModel(name);
        const int last = m->spec.nLayers - 1;
        const ForwardResult clean = forward::runForward(*m, {kIds, {}});
        for (const AblationKind kind : {AblationKind::Sink, AblationKind::Zero}) {
            const std::string item = std::to_string(last) + "-1";
            const ForwardResult ablated = forward::runForward(*m, {kIds, {}}, ablating(item, kind));
            const auto e = measureAblation(*m, clean, ablated);
            for (int layer = 0; layer <= last; ++layer) {
                for (int head = 0; head < m->spec.nHeads; ++head) {
                    const double js = e.jsOf({layer, head});
                    const std::string where =
                        std::string(name) + " " + forward::ablationKindName(kind);
                    if (layer == last && head == 1) {
                        // Zero: every row sums to 0, so no row is left.
                        EXPECT_TRUE(kind == AblationKind::Zero ? std::isnan(js) : js > 0)
                            << where << " " << js;
                    } else {
                        EXPECT_EQ(js, 0.0) << where << " head " << layer << "-" << head;
                    }
                }
            }
        }
    }
}

// Without recorded maps both passes' heads are recomputed one at a time: the same numbers.
TEST(AblationEffects, ACancelledRequestStopsWithCancelled) {
    const auto m = fixtureModel("gpt2_f32");
    const ForwardResult clean = forward::runForward(*m, {kIds, {}});
    const ForwardResult ablated =
        forward::runForward(*m, {kIds, {}}, ablating("0-1", AblationKind::Zero));
    CancelToken cancel;
    cancel.cancel();
    EXPECT_THROW(measureAblation(*m, clean, ablated, {}, cancel), Cancelled);
    EXPECT_THROW(headJsChange(*m, clean, ablated, cancel), Cancelled);
}

TEST(AblationEffects, WithoutMapsEqualsRecordedMaps) {
    const auto m = fixtureModel("llama3_gqa4_f32");
    forward::ForwardOptions cleanOptions;
    cleanOptions.keepLayerStates = true;
    const ForwardResult clean = forward::runForward(*m, {kIds, {}}, cleanOptions);
    const ForwardResult ablated =
        forward::runForwardFrom(*m, clean, {kIds, {}}, ablating("0-g1", AblationKind::Sink));
    forward::ForwardOptions small = cleanOptions;
    small.mapBudgetBytes = 0;
    const ForwardResult cleanNoMaps = forward::runForward(*m, {kIds, {}}, small);
    forward::ForwardOptions smallAblated = ablating("0-g1", AblationKind::Sink);
    smallAblated.mapBudgetBytes = 0;
    const ForwardResult ablatedNoMaps = forward::runForward(*m, {kIds, {}}, smallAblated);
    ASSERT_FALSE(cleanNoMaps.mapsRecorded);
    const auto recorded = measureAblation(*m, clean, ablated);
    const auto recomputed = measureAblation(*m, cleanNoMaps, ablatedNoMaps);
    ASSERT_EQ(recorded.js.size(), recomputed.js.size());
    for (std::size_t i = 0; i < recorded.js.size(); ++i) {
        EXPECT_EQ(recorded.js[i], recomputed.js[i]) << "head index " << i;
    }
    EXPECT_GT(recorded.jsOf({1, 0}), 0.0) << "a layer-0 sink changes layer 1's maps";
}

// log softmax in double, written out (the reference's definition), at one row of logits.
double logProb(const Matrix& logits, Eigen::Index row, std::int32_t id) {
    double sum = 0;
    for (Eigen::Index j = 0; j < logits.cols(); ++j) {
        sum += std::exp(static_cast<double>(logits(row, j)));
    }
    return static_cast<double>(logits(row, id)) - std::log(sum);
}

TEST(AblationEffects, CausalMeasuresEqualAHandComputation) {
    const auto m = fixtureModel("gpt2_f32");
    const ForwardResult clean = forward::runForward(*m, {kIds, {}});
    const ForwardResult ablated =
        forward::runForward(*m, {kIds, {}}, ablating("0-0,0-2", AblationKind::Zero));
    const auto e = measureAblation(*m, clean, ablated, {{}, analysis::LogitDiffRequest{4, 7, 9}});
    ASSERT_TRUE(e.causal);
    const Matrix lc = forward::vocabularyLogits(*m, clean.hidden);
    const Matrix la = forward::vocabularyLogits(*m, ablated.hidden);
    double nllClean = 0;
    double nllAblated = 0;
    for (std::size_t i = 0; i + 1 < kIds.size(); ++i) {
        nllClean -= logProb(lc, static_cast<Eigen::Index>(i), kIds[i + 1]);
        nllAblated -= logProb(la, static_cast<Eigen::Index>(i), kIds[i + 1]);
    }
    const auto n = static_cast<double>(kIds.size() - 1);
    EXPECT_NEAR(e.causal->nllClean, nllClean / n, 1e-9);
    EXPECT_NEAR(e.causal->deltaNll, (nllAblated - nllClean) / n, 1e-9);
    EXPECT_NE(e.causal->deltaNll, 0.0);
    for (std::size_t i = 0; i < kIds.size(); ++i) {
        EXPECT_GE(e.causal->kl[i], 0.0) << "position " << i;
        Eigen::Index top = 0;
        lc.row(static_cast<Eigen::Index>(i)).maxCoeff(&top);
        EXPECT_EQ(e.causal->topIds[i], top) << "position " << i;
    }
    ASSERT_TRUE(e.causal->logitDiff);
    const double expected = (double(la(4, 7)) - la(4, 9)) - (double(lc(4, 7)) - lc(4, 9));
    EXPECT_DOUBLE_EQ(e.causal->logitDiff->delta, expected);
    // One token: no next token to predict.
    const ForwardResult one = forward::runForward(*m, {{3}, {}});
    EXPECT_TRUE(std::isnan(measureAblation(*m, one, one).causal->nllClean));
}

TEST(AblationEffects, MaskedTargetsEqualAHandComputation) {
    const auto m = fixtureModel("bert_f32");
    const auto maskId = m->vocabulary()->specialId(tokenize::SpecialRole::Mask);
    ASSERT_TRUE(maskId);
    std::vector<std::int32_t> ids = kIds;
    ids[2] = *maskId;
    const ForwardResult clean = forward::runForward(*m, {ids, {}});
    const ForwardResult ablated =
        forward::runForward(*m, {ids, {}}, ablating("0-1", AblationKind::Sink));
    const auto e = measureAblation(*m, clean, ablated, {{{2, kIds[2]}}, std::nullopt});
    EXPECT_FALSE(e.causal);
    ASSERT_EQ(e.masked.size(), 1u);
    const Matrix lc = forward::vocabularyLogits(*m, clean.hidden);
    const Matrix la = forward::vocabularyLogits(*m, ablated.hidden);
    EXPECT_NEAR(e.masked[0].logpClean, logProb(lc, 2, kIds[2]), 1e-6);
    EXPECT_NEAR(e.masked[0].deltaLogp, logProb(la, 2, kIds[2]) - logProb(lc, 2, kIds[2]), 1e-6);
    EXPECT_NE(e.masked[0].deltaLogp, 0.0);
}

TEST(AblationEffects, RefusesRequestsTheModelCannotAnswer) {
    const auto bert = fixtureModel("bert_f32");
    const auto gpt2 = fixtureModel("gpt2_f32");
    const ForwardResult b = forward::runForward(*bert, {kIds, {}});
    const ForwardResult g = forward::runForward(*gpt2, {kIds, {}});
    const auto refused = [](const model::Model& m, const ForwardResult& r,
                            const analysis::EffectRequest& q) {
        return invalidMessage([&] { measureAblation(m, r, r, q); });
    };
    EXPECT_NE(refused(*gpt2, g, {{{1, 2}}, std::nullopt}).find("masked LM measure"),
              std::string::npos);
    EXPECT_NE(refused(*bert, b, {{}, analysis::LogitDiffRequest{0, 1, 2}}).find("causal LM"),
              std::string::npos);
    EXPECT_NE(refused(*bert, b, {{{1, 2}}, std::nullopt})
                  .find("position 1 holds id 17, not the "
                        "mask token"),
              std::string::npos)
        << refused(*bert, b, {{{1, 2}}, std::nullopt});
    EXPECT_NE(refused(*bert, b, {{{11, 2}}, std::nullopt})
                  .find("masked target 0: position 11 is "
                        "outside the input's tokens 0..10"),
              std::string::npos);
    const std::string id = refused(*gpt2, g, {{}, analysis::LogitDiffRequest{3, 1, 100000}});
    EXPECT_NE(id.find("logit difference: id 100000 is outside the vocabulary"), std::string::npos)
        << id;
    EXPECT_NE(refused(*gpt2, g, {{}, analysis::LogitDiffRequest{-1, 1, 2}}).find("position -1"),
              std::string::npos);
    const auto headless = fixtureModel("bert_noprefix_f16");
    const ForwardResult h = forward::runForward(*headless, {kIds, {}});
    EXPECT_NE(refused(*headless, h, {{{1, 2}}, std::nullopt}).find("no prediction head"),
              std::string::npos);
    EXPECT_FALSE(measureAblation(*headless, h, h).causal);  // JS alone needs no head
}

}  // namespace
}  // namespace attnscope
