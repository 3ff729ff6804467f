// Head ablation in the forward pass (issue 17, methods.md §3.1): what each kind does to the
// ablated head, that nothing else in its layer or below changes, that a key/value group is its
// query heads, and that bad interventions are refused with the item named.
#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "ablation_support.h"
#include "attnscope/analysis/head_stats.h"
#include "attnscope/base/error.h"
#include "attnscope/ops/layer_ops.h"

namespace attnscope {
namespace {

using forward::AblationKind;
using forward::ForwardResult;
using testing::fixtureModel;
using testing::sameFloats;
using testing::sentence;
using testing::withAblations;

// The message of the InvalidArgument `f` throws; fails the test when it throws none.
template <class F>
std::string invalidMessage(F&& f) {
    return testing::errorMessage<InvalidArgument>(std::forward<F>(f));
}

TEST(AblationList, ParsesHeadsAndGroups) {
    const auto list = forward::parseAblationList(" 3-7, 5-g1 ,0-0", AblationKind::Sink);
    ASSERT_EQ(list.size(), 3u);
    EXPECT_EQ(list[0].layer, 3);
    EXPECT_EQ(list[0].target, 7);
    EXPECT_FALSE(list[0].kvGroup);
    EXPECT_EQ(list[1].layer, 5);
    EXPECT_EQ(list[1].target, 1);
    EXPECT_TRUE(list[1].kvGroup);
    EXPECT_EQ(list[2].kind, AblationKind::Sink);
    EXPECT_EQ(forward::describe(list[1]), "5-g1 (sink)");
}

TEST(AblationList, NamesTheBadItem) {
    for (const std::string bad : {"3", "3-x", "a-1", "3-g", "3-7,", "-1-2", "1-2-3"}) {
        const std::string msg =
            invalidMessage([&] { forward::parseAblationList(std::string("0-0,") + bad); });
        const std::string item = bad == "3-7," ? std::string("''") : std::string("'") + bad + "'";
        EXPECT_NE(msg.find(item), std::string::npos) << bad << ": " << msg;
    }
}

TEST(AblationValidation, RefusesWhatTheModelCannotTakeNamingTheItem) {
    const auto m = fixtureModel("llama3_gqa4_f32");  // 2 layers, 8 heads, 2 key/value groups
    const auto refused = [&](const std::string& list, AblationKind kind = AblationKind::Zero) {
        return invalidMessage(
            [&] { forward::runForward(*m, sentence(), withAblations(list, kind)); });
    };
    EXPECT_NE(refused("2-0").find("2-0 (zero): layer 2"), std::string::npos) << refused("2-0");
    EXPECT_NE(refused("1-8").find("1-8 (zero): head 8"), std::string::npos);
    EXPECT_NE(refused("1-g2").find("1-g2 (zero): key/value group 2"), std::string::npos);
    EXPECT_NE(refused("0-1,0-1").find("head 0-1 is already ablated by 0-1"), std::string::npos);
    EXPECT_NE(refused("0-g1,0-5").find("0-5 (zero): head 0-5 is already ablated by 0-g1"),
              std::string::npos)
        << refused("0-g1,0-5");
    EXPECT_NE(refused("1-3", AblationKind::Mean).find("1-3 (mean): mean ablation needs"),
              std::string::npos);
    forward::ForwardOptions o = withAblations("1-3", AblationKind::Mean);
    auto means = std::make_shared<forward::HeadMeans>(forward::computeHeadMeans(*m, {{3, 4}}));
    means->values.pop_back();
    o.interventions.means = means;
    const std::string shape = invalidMessage([&] { forward::runForward(*m, sentence(), o); });
    EXPECT_NE(shape.find("1-3 (mean): the means are"), std::string::npos) << shape;
}

// An empty set (even with means supplied) is the plain pass, bit for bit.
TEST(Ablation, EmptyInterventionsAreThePlainPass) {
    for (const char* name : {"bert_f32", "gpt2_f32", "llama3_gqa4_f32"}) {
        const auto m = fixtureModel(name);
        const ForwardResult plain = forward::runForward(*m, sentence());
        forward::ForwardOptions o;
        o.interventions.means =
            std::make_shared<forward::HeadMeans>(forward::computeHeadMeans(*m, {{3, 4, 5}}));
        const ForwardResult empty = forward::runForward(*m, sentence(), o);
        testing::expectSameResult(plain, empty, name);
        EXPECT_EQ(plain.ablated, std::vector<std::optional<AblationKind>>(
                                     static_cast<std::size_t>(plain.nLayers * plain.nHeads)));
    }
}

// GetParam()'s model and its clean pass over sentence(), which each test ablates one way.
class AblationKinds : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        m = fixtureModel(GetParam());
        clean = forward::runForward(*m, sentence());
    }

    ForwardResult ablated(const forward::ForwardOptions& options) const {
        return forward::runForward(*m, sentence(), options);
    }

    std::shared_ptr<const model::Model> m;
    ForwardResult clean;
};

// Below the ablated layer nothing changes, and neither do the layer's other heads.
void expectUnchangedExcept(const ForwardResult& clean, const ForwardResult& ablated, HeadId h) {
    for (int layer = 0; layer <= h.layer; ++layer) {
        for (int head = 0; head < clean.nHeads; ++head) {
            if (HeadId{layer, head} == h) {
                continue;
            }
            EXPECT_TRUE(
                sameFloats(clean.attention({layer, head}), ablated.attention({layer, head})))
                << layer << "-" << head;
            EXPECT_TRUE(
                sameFloats(clean.contextOf({layer, head}), ablated.contextOf({layer, head})))
                << layer << "-" << head;
        }
    }
    EXPECT_TRUE(sameFloats(clean.logitsOf(h), ablated.logitsOf(h)));  // pre-softmax
}

TEST_P(AblationKinds, ZeroLeavesNoWeightNoOutputAndIsFlagged) {
    const HeadId h{0, 1};
    const ForwardResult r = ablated(withAblations("0-1", AblationKind::Zero));
    EXPECT_TRUE(r.attention(h).isZero(0));
    EXPECT_TRUE(r.contextOf(h).isZero(0));
    EXPECT_TRUE(r.entropyOf(h).isZero(0));
    EXPECT_TRUE(r.rowMaxOf(h).isZero(0));
    EXPECT_EQ(r.ablationOf(h), AblationKind::Zero);
    EXPECT_EQ(r.ablationOf({0, 0}), std::nullopt);
    expectUnchangedExcept(clean, r, h);
    EXPECT_FALSE(sameFloats(clean.hidden, r.hidden));
    const analysis::HeadStats s = analysis::headStatsOf(r, h);
    EXPECT_EQ(s.meanEntropy, 0.0f);
    EXPECT_EQ(s.maxWeight, 0.0f);
    EXPECT_EQ(s.maxAbsLogit, analysis::headStatsOf(clean, h).maxAbsLogit);
}

// Under a causal mask query 0 sees only key 0, so a clean head's context row 0 is its V row 0.
TEST_P(AblationKinds, SinkAttendsToTheFirstTokenAndOutputsItsValue) {
    const HeadId h{1, 2};
    const ForwardResult r = ablated(withAblations("1-2", AblationKind::Sink));
    Matrix oneHot = Matrix::Zero(r.nTokens, r.nTokens);
    oneHot.col(0).setOnes();
    EXPECT_TRUE(sameFloats(r.attention(h), oneHot));
    EXPECT_TRUE(r.entropyOf(h).isZero(0));
    for (int q = 0; q < r.nTokens; ++q) {
        EXPECT_TRUE(sameFloats(Matrix(r.contextOf(h).row(q)), Matrix(clean.contextOf(h).row(0))))
            << q;
    }
    EXPECT_FALSE(sameFloats(r.contextOf(h), clean.contextOf(h)));
    expectUnchangedExcept(clean, r, h);
    EXPECT_EQ(analysis::headStatsOf(r, h).meanEntropy, 0.0f);
    EXPECT_EQ(analysis::headStatsOf(r, h).maxWeight, 1.0f);
}

TEST_P(AblationKinds, MeanReplacesEveryOutputRowAndKeepsTheMap) {
    const HeadId h{1, 0};
    forward::ForwardOptions o = withAblations("1-0", AblationKind::Mean);
    o.interventions.means = std::make_shared<forward::HeadMeans>(
        forward::computeHeadMeans(*m, {{5, 6, 7, 8}, {9, 10}}));
    const ForwardResult r = ablated(o);
    for (int q = 0; q < r.nTokens; ++q) {
        EXPECT_TRUE(sameFloats(Matrix(r.contextOf(h).row(q)), Matrix(o.interventions.means->of(h))))
            << q;
    }
    EXPECT_TRUE(sameFloats(r.attention(h), clean.attention(h)));
    EXPECT_TRUE(sameFloats(r.entropyOf(h), clean.entropyOf(h)));
    expectUnchangedExcept(clean, r, h);
    EXPECT_FALSE(sameFloats(clean.hidden, r.hidden));
}

INSTANTIATE_TEST_SUITE_P(Causal, AblationKinds,
                         ::testing::Values("gpt2_f32", "llama3_gqa4_f32", "qwen2_gqa2_bf16"));

// Ablating heads of the last layer changes nothing in the layers below.
TEST(Ablation, LastLayerLeavesEarlierLayersBitwiseUnchanged) {
    for (const char* name : {"bert_f32", "gpt2_sharded_bf16", "mistral_mqa_window_f32"}) {
        const auto m = fixtureModel(name);
        const ForwardResult clean = forward::runForward(*m, sentence());
        const std::string last = std::to_string(clean.nLayers - 1) + "-0";
        const ForwardResult r =
            forward::runForward(*m, sentence(), withAblations(last, AblationKind::Zero));
        const std::size_t lastLayerMaps =
            static_cast<std::size_t>(clean.nHeads * clean.nTokens * clean.nTokens);
        const auto below = static_cast<std::ptrdiff_t>(clean.probs.size() - lastLayerMaps);
        EXPECT_TRUE(std::equal(clean.probs.data(), clean.probs.data() + below, r.probs.data()))
            << name;
        EXPECT_TRUE(std::memcmp(clean.logits.data(), r.logits.data(),
                                static_cast<std::size_t>(below) * sizeof(float)) == 0)
            << name;
        EXPECT_FALSE(sameFloats(clean.hidden, r.hidden)) << name;
    }
}

class KvGroups : public ::testing::TestWithParam<std::string> {};

// A key/value group is exactly its query heads, whatever the kind.
TEST_P(KvGroups, AGroupIsItsQueryHeads) {
    const auto m = fixtureModel(GetParam());
    const int size = m->spec.nHeads / m->spec.nKvHeads;
    ASSERT_GT(size, 1);
    const auto means = std::make_shared<forward::HeadMeans>(
        forward::computeHeadMeans(*m, {{5, 6, 7, 8}, {9, 10}}));
    for (AblationKind kind : {AblationKind::Zero, AblationKind::Sink, AblationKind::Mean}) {
        const std::string lastGroup = std::to_string(m->spec.nKvHeads - 1);
        forward::ForwardOptions group = withAblations(std::string("0-g0,1-g") + lastGroup, kind);
        std::string heads;
        for (int i = 0; i < size; ++i) {
            heads += std::string("0-") + std::to_string(i) + ",1-" +
                     std::to_string(m->spec.nHeads - size + i) + (i + 1 < size ? "," : "");
        }
        forward::ForwardOptions each = withAblations(heads, kind);
        group.interventions.means = each.interventions.means = means;
        testing::expectSameResult(forward::runForward(*m, sentence(), group),
                                  forward::runForward(*m, sentence(), each),
                                  GetParam() + " " + forward::ablationKindName(kind));
    }
}

INSTANTIATE_TEST_SUITE_P(Gqa, KvGroups,
                         ::testing::Values("llama_gqa2_headdim_bf16", "llama3_gqa4_f32",
                                           "mistral_mqa_window_f32", "qwen2_gqa2_bf16"));

}  // namespace
}  // namespace attnscope
