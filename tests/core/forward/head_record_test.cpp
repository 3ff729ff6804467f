// Cancelling a head recompute: apps drop heads nobody waits for any more (a new sentence, the
// app closing), so recomputeHead takes a CancelToken. A set token stops it with Cancelled, the
// error the forward pass and the loader throw; an unset one leaves the bits of a full
// recording untouched.
#include "attnscope/forward/head_record.h"

#include <gtest/gtest.h>

#include "../support/same_bits.h"
#include "../support/test_names.h"
#include "attnscope/base/cancel.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;
using testing::sameBits;
using testing::sameRecord;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

const forward::ForwardInput kInput{{3, 17, 9, 4, 12, 8, 21, 5, 2}, {}};

forward::ForwardResult leanForward(const model::Model& m) {
    forward::ForwardOptions options;
    options.mapBudgetBytes = 0;  // keeps only summaries and layer inputs
    return forward::runForward(m, kInput, options);
}

class HeadRecordCancel : public ::testing::TestWithParam<std::string> {};

TEST_P(HeadRecordCancel, ACancelledTokenThrowsCancelled) {
    const auto m = model::loadModel(kCheckpoints / GetParam());
    const forward::ForwardResult lean = leanForward(*m);
    ASSERT_FALSE(lean.mapsRecorded);
    CancelToken token;
    token.cancel();
    for (int layer = 0; layer < lean.nLayers; ++layer) {
        const HeadId h{layer, lean.nHeads - 1};
        EXPECT_THROW(forward::recomputeHead(*m, lean, h, token), Cancelled)
            << GetParam() << " " << h.toString();
        EXPECT_THROW(forward::headRecord(*m, lean, h, token), Cancelled) << h.toString();
    }
    // A copy out of recorded maps has nothing to stop.
    const forward::ForwardResult full = forward::runForward(*m, kInput);
    ASSERT_TRUE(full.mapsRecorded);
    EXPECT_TRUE(
        sameBits(forward::headRecord(*m, full, {0, 0}, token).probs, full.attention({0, 0})));
}

TEST_P(HeadRecordCancel, AnUnsetTokenGivesTheFullRecordingBitForBit) {
    const auto m = model::loadModel(kCheckpoints / GetParam());
    const forward::ForwardResult full = forward::runForward(*m, kInput);
    const forward::ForwardResult lean = leanForward(*m);
    const CancelToken token;  // never set
    for (int layer = 0; layer < full.nLayers; ++layer) {
        for (int head = 0; head < full.nHeads; ++head) {
            const HeadId h{layer, head};
            const forward::HeadRecord withToken = forward::recomputeHead(*m, lean, h, token);
            EXPECT_TRUE(sameRecord(withToken, forward::recomputeHead(*m, lean, h)))
                << GetParam() << " " << h.toString();
            EXPECT_TRUE(sameRecord(withToken, forward::headRecord(*m, full, h)))
                << GetParam() << " " << h.toString();
        }
    }
    EXPECT_FALSE(token.isCancelled());
}

// An absolute-position encoder, a learned-position decoder and a RoPE model with GQA: each
// path through recomputeHead (bias only, RoPE table, shared key/value heads).
INSTANTIATE_TEST_SUITE_P(Checkpoints, HeadRecordCancel,
                         ::testing::Values("bert_f32", "gpt2_f32", "llama3_gqa4_f32"),
                         testing::paramName);

}  // namespace
}  // namespace attnscope
