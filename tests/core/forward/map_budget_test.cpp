// Memory-budgeted recording (issue 6): above the budget a forward pass keeps per-head
// summaries and each layer's input instead of every map, and recomputeHead rebuilds any head
// bit for bit equal to a full recording; statistics and hidden states do not change.
#include <algorithm>
#include <stdexcept>

#include <gtest/gtest.h>

#include "../support/same_bits.h"
#include "../support/test_names.h"
#include "attnscope/analysis/head_stats.h"
#include "attnscope/base/error.h"
#include "attnscope/base/threads.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/head_record.h"
#include "attnscope/model/model.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;
using testing::sameBits;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

// "checkpoint" or "checkpoint@half": the latter keeps F16/BF16 weights half precision, so the
// recompute goes through the block-widening product.
std::shared_ptr<const model::Model> loadParam(const std::string& param) {
    const auto at = param.find('@');
    model::LoadOptions options;
    if (at != std::string::npos) {
        options.weights = model::WeightPrecision::AsStored;
    }
    return model::loadModel(kCheckpoints / param.substr(0, at), options);
}

class MapBudget : public ::testing::TestWithParam<std::string> {};

TEST_P(MapBudget, RecomputedHeadsEqualTheFullRecordingBitForBit) {
    const auto m = loadParam(GetParam());
    const forward::ForwardInput input{{3, 17, 9, 4, 12, 8, 21, 5, 2, 30, 11}, {}};
    const forward::ForwardResult full = forward::runForward(*m, input);
    forward::ForwardOptions budgeted;
    budgeted.mapBudgetBytes = forward::fullRecordBytes(m->spec, 11) - 1;
    const forward::ForwardResult lean = forward::runForward(*m, input, budgeted);

    ASSERT_TRUE(full.mapsRecorded);
    ASSERT_FALSE(lean.mapsRecorded);
    EXPECT_EQ(lean.mapBytes(), 0u);
    EXPECT_LE(lean.mapBytes(), *budgeted.mapBudgetBytes);
    EXPECT_TRUE(sameBits(lean.hidden, full.hidden));
    EXPECT_EQ(lean.entropy, full.entropy);
    EXPECT_EQ(lean.rowMax, full.rowMax);
    EXPECT_EQ(lean.maxAbsLogit, full.maxAbsLogit);
    for (int layer = 0; layer < full.nLayers; ++layer) {
        for (int head = 0; head < full.nHeads; ++head) {
            const HeadId h{layer, head};
            const forward::HeadRecord rec = forward::recomputeHead(*m, lean, h);
            EXPECT_TRUE(sameBits(rec.probs, full.attention(h)))
                << GetParam() << " " << layer << "." << head;
            EXPECT_TRUE(sameBits(rec.logits, full.logitsOf(h))) << layer << "." << head;
            EXPECT_TRUE(sameBits(rec.context, full.contextOf(h))) << layer << "." << head;
            EXPECT_TRUE(sameBits(rec.entropy, full.entropyOf(h))) << layer << "." << head;
        }
    }
    const auto a = analysis::headStats(full);
    const auto b = analysis::headStats(lean);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].meanEntropy, b[i].meanEntropy);
        EXPECT_EQ(a[i].maxWeight, b[i].maxWeight);
        EXPECT_EQ(a[i].meanMaxWeight, b[i].meanMaxWeight);
        EXPECT_EQ(a[i].maxAbsLogit, b[i].maxAbsLogit);
    }
}

// Heads run in parallel over the compute threads; a recomputed head (computed alone) must
// still equal the recording bit for bit, and two threads must give one thread's numbers.
TEST_P(MapBudget, ParallelHeadsRecomputeBitForBitAndMatchOneThread) {
    const auto m = loadParam(GetParam());
    // Over 16 tokens: the products' row panels have a remainder.
    const forward::ForwardInput input{
        {3, 17, 9, 4, 12, 8, 21, 5, 2, 30, 11, 6, 14, 1, 7, 19, 23, 2}, {}};
    const forward::ForwardResult serial = forward::runForward(*m, input);
    setComputeThreads(2);
    const forward::ForwardResult full = forward::runForward(*m, input);
    forward::ForwardOptions budgeted;
    budgeted.mapBudgetBytes = 0;
    const forward::ForwardResult lean = forward::runForward(*m, input, budgeted);
    for (int layer = 0; layer < full.nLayers; ++layer) {
        for (int head = 0; head < full.nHeads; ++head) {
            const HeadId h{layer, head};
            const forward::HeadRecord rec = forward::recomputeHead(*m, lean, h);
            EXPECT_TRUE(sameBits(rec.probs, full.attention(h))) << layer << "." << head;
            EXPECT_TRUE(sameBits(rec.entropy, full.entropyOf(h))) << layer << "." << head;
            EXPECT_TRUE(full.attention(h).isApprox(serial.attention(h), 1e-6f))
                << layer << "." << head;
        }
    }
    EXPECT_EQ(full.fullyMaskedRows, serial.fullyMaskedRows);
    setComputeThreads(1);
}

INSTANTIATE_TEST_SUITE_P(Checkpoints, MapBudget,
                         ::testing::Values("bert_f32", "roberta_f32", "distilbert_f16", "gpt2_f32",
                                           "llama3_gqa4_f32", "mistral_mqa_window_f32",
                                           "qwen2_gqa2_bf16", "qwen2_gqa2_bf16@half",
                                           "distilbert_f16@half"),
                         testing::paramName);

TEST(MapBudgetLimits, ExactlyAtTheBudgetStillRecordsAndMapsAreGuarded) {
    const auto m = model::loadModel(kCheckpoints / "gpt2_f32");
    const forward::ForwardInput input{{1, 2, 3, 4}, {}};
    forward::ForwardOptions options;
    options.mapBudgetBytes = forward::fullRecordBytes(m->spec, 4);
    const auto r = forward::runForward(*m, input, options);
    EXPECT_TRUE(r.mapsRecorded);
    EXPECT_EQ(r.mapBytes(), *options.mapBudgetBytes);  // the formula is the real footprint
    options.mapBudgetBytes = 0;
    const auto lean = forward::runForward(*m, input, options);
    EXPECT_THROW(lean.attention({0, 0}), std::logic_error);
    EXPECT_THROW(forward::recomputeHead(*m, lean, {2, 0}), InvalidArgument);
    EXPECT_THROW(forward::recomputeHead(*m, r, {0, 0}), InvalidArgument);  // no layer inputs
    // headRecord serves both kinds of result.
    EXPECT_TRUE(sameBits(forward::headRecord(*m, r, {1, 2}).probs, r.attention({1, 2})));
    EXPECT_TRUE(sameBits(forward::headRecord(*m, lean, {1, 2}).probs, r.attention({1, 2})));
}

TEST(MapBudgetLimits, LongInputsStayWithinTheBudget) {
    // 21 positions x 2 layers x 3 heads: the full record would take fullRecordBytes; with a
    // budget of a tenth of it only summaries and the layer inputs remain.
    const auto m = model::loadModel(kCheckpoints / "gpt2_f32");
    std::vector<std::int32_t> ids(21, 7);
    forward::ForwardOptions options;
    options.mapBudgetBytes = forward::fullRecordBytes(m->spec, 21) / 10;
    const auto r = forward::runForward(*m, {ids, {}}, options);
    EXPECT_FALSE(r.mapsRecorded);
    std::size_t kept = (r.entropy.size() + r.rowMax.size() + r.maxAbsLogit.size()) * 4;
    for (const Matrix& x : r.layerInputs) {
        kept += static_cast<std::size_t>(x.size()) * 4;
    }
    EXPECT_LT(kept, forward::fullRecordBytes(m->spec, 21));
}

}  // namespace
}  // namespace attnscope
