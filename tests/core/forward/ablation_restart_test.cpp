// Restarting a pass at the first ablated layer (issue 17): runForwardFrom reuses a clean pass
// below that layer and must equal a full pass with the same interventions bit for bit, in
// both recording modes; recomputeHead rebuilds ablated heads as recorded; zero ablation is HF's
// head_mask (probs × 0 before ·V), checked against a literal reimplementation of a layer; and
// computeHeadMeans pools every clean context row.
#include <ostream>

#include <gtest/gtest.h>

#include "../support/same_bits.h"
#include "../support/test_names.h"
#include "ablation_support.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/head_record.h"
#include "attnscope/ops/layer_ops.h"

namespace attnscope {
namespace {

using forward::AblationKind;
using forward::ForwardOptions;
using forward::ForwardResult;
using testing::fixtureModel;
using testing::sameFloats;
using testing::sentence;
using testing::withAblations;

struct Restart {
    std::string model;
    std::string heads;
    AblationKind kind;
    bool budgeted;  // maps over the memory budget: summaries and layer inputs only
};

std::string restartName(const ::testing::TestParamInfo<Restart>& info) {
    return testing::testName(info.param.model + "_" + forward::ablationKindName(info.param.kind) +
                             (info.param.budgeted ? "_budgeted_" : "_") + info.param.heads);
}

void PrintTo(const Restart& c, std::ostream* os) {
    *os << c.model << " " << c.heads << " " << forward::ablationKindName(c.kind)
        << (c.budgeted ? " budgeted" : "");
}

class RunForwardFrom : public ::testing::TestWithParam<Restart> {};

TEST_P(RunForwardFrom, EqualsTheFullPassBitForBit) {
    const Restart& c = GetParam();
    const auto m = fixtureModel(c.model);
    ForwardOptions base;
    base.keepLayerStates = true;
    if (c.budgeted) {
        base.mapBudgetBytes = forward::fullRecordBytes(m->spec, 11) - 1;
    }
    const ForwardResult clean = forward::runForward(*m, sentence(), base);
    ForwardOptions o = withAblations(c.heads, c.kind);
    o.mapBudgetBytes = base.mapBudgetBytes;
    o.interventions.means = std::make_shared<forward::HeadMeans>(
        forward::computeHeadMeans(*m, {{5, 6, 7, 8}, {9, 10}}));
    for (bool keep : {false, true}) {
        o.keepLayerStates = keep;
        const ForwardResult full = forward::runForward(*m, sentence(), o);
        const ForwardResult from = forward::runForwardFrom(*m, clean, sentence(), o);
        EXPECT_EQ(full.mapsRecorded, !c.budgeted);
        testing::expectSameResult(full, from, restartName({c, 0}));
        if (c.budgeted) {
            for (int layer = 0; layer < full.nLayers; ++layer) {
                for (int head = 0; head < full.nHeads; ++head) {
                    EXPECT_TRUE(
                        testing::sameRecord(forward::recomputeHead(*m, full, {layer, head}),
                                            forward::recomputeHead(*m, from, {layer, head})));
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    Models, RunForwardFrom,
    ::testing::Values(Restart{"bert_f32", "1-2", AblationKind::Zero, false},
                      Restart{"bert_f32", "0-1,1-0", AblationKind::Mean, true},
                      Restart{"gpt2_f32", "1-0,1-2", AblationKind::Sink, false},
                      Restart{"gpt2_sharded_bf16", "2-3", AblationKind::Zero, true},
                      Restart{"gpt2_sharded_bf16", "1-1,3-0", AblationKind::Mean, false},
                      Restart{"llama3_gqa4_f32", "1-g1", AblationKind::Zero, false},
                      Restart{"llama3_gqa4_f32", "0-g0,1-5", AblationKind::Sink, true},
                      Restart{"qwen2_gqa2_bf16", "2-g0", AblationKind::Mean, false},
                      Restart{"roberta_f32", "", AblationKind::Zero, false}),
    restartName);

// Over the map budget, an ablated head is rebuilt with its ablation, as a full recording holds.
TEST(AblatedRecompute, EqualsTheFullRecordingBitForBit) {
    for (const char* name : {"bert_f32", "llama3_gqa4_f32"}) {
        const auto m = fixtureModel(name);
        for (AblationKind kind : {AblationKind::Zero, AblationKind::Sink, AblationKind::Mean}) {
            ForwardOptions o = withAblations("0-1,1-0", kind);
            o.interventions.means =
                std::make_shared<forward::HeadMeans>(forward::computeHeadMeans(*m, {{5, 6, 7, 8}}));
            const ForwardResult full = forward::runForward(*m, sentence(), o);
            o.mapBudgetBytes = forward::fullRecordBytes(m->spec, 11) - 1;
            const ForwardResult lean = forward::runForward(*m, sentence(), o);
            ASSERT_FALSE(lean.mapsRecorded);
            for (const HeadId h : {HeadId{0, 1}, HeadId{1, 0}, HeadId{1, 1}}) {
                const forward::HeadRecord rec = forward::recomputeHead(*m, lean, h);
                const forward::HeadRecord want = forward::headRecord(*m, full, h);
                EXPECT_TRUE(testing::sameRecord(rec, want))
                    << name << " " << forward::ablationKindName(kind) << " " << h.toString();
            }
        }
    }
}

TEST(RunForwardFromRefuses, ACleanPassItCannotRestartFrom) {
    const auto m = fixtureModel("gpt2_f32");
    const ForwardOptions o = withAblations("1-0", AblationKind::Zero);
    const ForwardResult noStates = forward::runForward(*m, sentence());
    EXPECT_THROW(forward::runForwardFrom(*m, noStates, sentence(), o), InvalidArgument);
    ForwardOptions keep;
    keep.keepLayerStates = true;
    const ForwardResult other = forward::runForward(*m, {{3, 4, 5}, {}}, keep);
    EXPECT_THROW(forward::runForwardFrom(*m, other, sentence(), o), InvalidArgument);
    ForwardOptions ablatedBelow = withAblations("0-2", AblationKind::Zero);
    ablatedBelow.keepLayerStates = true;
    const ForwardResult below = forward::runForward(*m, sentence(), ablatedBelow);
    try {
        forward::runForwardFrom(*m, below, sentence(), o);
        ADD_FAILURE() << "no InvalidArgument";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("head 0-2 is ablated in it (zero)"), std::string::npos)
            << e.what();
    }
}

// HF head_mask, literally: a pre-norm layer of GPT-2 recomputed from the ops with the ablated
// head's recorded probabilities multiplied by 0 before ·V gives the residual stream the
// ablated pass hands to the next layer.
TEST(ZeroAblation, IsHeadMaskTimesProbsBeforeValues) {
    const auto m = fixtureModel("gpt2_f32");
    const model::ModelSpec& spec = m->spec;
    ASSERT_EQ(spec.normPlacement, model::NormPlacement::Pre);
    ASSERT_EQ(spec.ffnKind, model::FfnKind::Plain);
    ForwardOptions keep;
    keep.keepLayerStates = true;
    const ForwardResult clean = forward::runForward(*m, sentence(), keep);
    ForwardOptions o = withAblations("0-1", AblationKind::Zero);
    o.keepLayerStates = true;
    const ForwardResult r = forward::runForward(*m, sentence(), o);

    const model::LayerWeights& w = m->weights.layers[0];
    Matrix x = clean.layerStates[0];
    const Matrix v =
        ops::linear(ops::normalize(x, w.attnNorm, spec.normKind, spec.normEps), w.value);
    Matrix concat(x.rows(), spec.nHeads * spec.headDimV);
    for (int head = 0; head < spec.nHeads; ++head) {
        Matrix probs = clean.attention({0, head});
        if (head == 1) {
            probs *= 0.0f;
        }
        concat.middleCols(head * spec.headDimV, spec.headDimV) =
            probs * v.middleCols(head * spec.headDimV, spec.headDimV);
    }
    x += ops::linear(concat, w.output);
    Matrix f = ops::linear(ops::normalize(x, w.ffnNorm, spec.normKind, spec.normEps), w.ffnUp);
    ops::activate(f, spec.activation);
    x += ops::linear(f, w.ffnDown);

    EXPECT_TRUE(x.isApprox(r.layerStates[1], 1e-5f))
        << (x - r.layerStates[1]).cwiseAbs().maxCoeff();
    EXPECT_FALSE(clean.layerStates[1].isApprox(r.layerStates[1], 1e-3f));
}

// Pooled: one mean over every query row of every sequence, not a mean of per-sequence means.
TEST(HeadMeans, PoolEveryCleanContextRow) {
    const auto m = fixtureModel("llama_gqa2_headdim_bf16");
    const std::vector<std::vector<std::int32_t>> seqs{{5, 6, 7, 8, 9}, {10, 11}};
    const ForwardResult a = forward::runForward(*m, {seqs[0], {}});
    const ForwardResult b = forward::runForward(*m, {seqs[1], {}});
    ForwardOptions ignored = withAblations("0-0", AblationKind::Zero);  // means are clean
    const forward::HeadMeans means = forward::computeHeadMeans(*m, seqs, ignored);
    EXPECT_EQ(means.rows, 7);
    EXPECT_EQ(means.nLayers, m->spec.nLayers);
    EXPECT_EQ(means.nHeads, m->spec.nHeads);
    EXPECT_EQ(means.headDimV, m->spec.headDimV);
    for (int layer = 0; layer < a.nLayers; ++layer) {
        for (int head = 0; head < a.nHeads; ++head) {
            const HeadId h{layer, head};
            for (int d = 0; d < a.headDimV; ++d) {
                double sum = 0;
                for (int q = 0; q < 5; ++q) {
                    sum += a.contextOf(h)(q, d);
                }
                sum += static_cast<double>(b.contextOf(h)(0, d)) + b.contextOf(h)(1, d);
                EXPECT_NEAR(means.of(h)[d], sum / 7.0, 1e-6) << h.toString() << " " << d;
            }
        }
    }
    EXPECT_THROW(forward::computeHeadMeans(*m, {}), InvalidArgument);
}

}  // namespace
}  // namespace attnscope
