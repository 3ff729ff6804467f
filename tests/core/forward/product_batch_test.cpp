// Forward passes on several threads whose weight products are multiplied together
// (ops::ProductBatch) give each pass the very bits it gets alone: the promise corpus jobs rely
// on to batch sentences (issue 35). Sentences of very different lengths, one of them a single
// token and one too long for the model, on members that run different numbers of passes.
#include "attnscope/ops/product_batch.h"

#include <algorithm>
#include <latch>
#include <optional>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "../support/same_bits.h"
#include "../support/test_names.h"
#include "attnscope/base/error.h"
#include "attnscope/base/threads.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;
using testing::sameBits;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

std::vector<forward::ForwardInput> sentences(const model::Model& m) {
    std::vector<forward::ForwardInput> out;
    const int most = m.spec.maxTokens();  // the test models have 21 to 64 positions
    for (const int n : {std::min(9, most), 1, most, 4, std::max(1, 2 * most / 3), 2, most - 1}) {
        forward::ForwardInput in;
        for (int i = 0; i < n; ++i) {
            in.tokenIds.push_back((7 * i + 3 * n) % m.spec.vocabSize);
        }
        out.push_back(std::move(in));
    }
    return out;
}

bool sameResult(const forward::ForwardResult& a, const forward::ForwardResult& b) {
    const auto same = [](const auto& x, const auto& y) { return x == y; };
    return same(a.logits, b.logits) && same(a.probs, b.probs) && same(a.context, b.context) &&
           same(a.entropy, b.entropy) && same(a.rowMaxAbsLogit, b.rowMaxAbsLogit) &&
           sameBits(a.hidden, b.hidden);
}

// Members 0 … members−1 take sentences i, i + members, …; each keeps its results by index.
std::vector<std::optional<forward::ForwardResult>> runBatched(
    const model::Model& m, const std::vector<forward::ForwardInput>& inputs, int members,
    ops::ProductBatch& batch, std::vector<std::string>& errors) {
    std::vector<std::optional<forward::ForwardResult>> results(inputs.size());
    errors.assign(inputs.size(), "");
    std::vector<std::thread> threads;
    std::latch started(members);  // every member joined before the first product: some are shared
    for (int member = 0; member < members; ++member) {
        threads.emplace_back([&, member] {
            const ops::ProductBatch::Member joined(batch);
            started.arrive_and_wait();
            for (std::size_t i = static_cast<std::size_t>(member); i < inputs.size();
                 i += static_cast<std::size_t>(members)) {
                try {
                    results[i] = forward::runForward(m, inputs[i]);
                } catch (const std::exception& e) {
                    errors[i] = e.what();
                }
            }
        });
    }
    for (auto& t : threads) {
        t.join();
    }
    return results;
}

class ProductBatchBits : public ::testing::TestWithParam<std::string> {};

TEST_P(ProductBatchBits, EveryPassGetsTheBitsItGetsAlone) {
    const auto m = model::loadModel(kCheckpoints / GetParam());
    std::vector<forward::ForwardInput> inputs = sentences(*m);
    forward::ForwardInput tooLong;
    tooLong.tokenIds.assign(static_cast<std::size_t>(m->spec.maxTokens()) + 1, 1);
    inputs.insert(inputs.begin() + 3, tooLong);
    setComputeThreads(1);
    std::vector<forward::ForwardResult> alone;
    for (const auto& in : inputs) {
        if (in.tokenIds.size() <= static_cast<std::size_t>(m->spec.maxTokens())) {
            alone.push_back(forward::runForward(*m, in));
        } else {
            alone.emplace_back();
        }
    }
    for (const int members : {3, 8}) {
        ops::ProductBatch batch(2);
        std::vector<std::string> errors;
        const auto batched = runBatched(*m, inputs, members, batch, errors);
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            if (i == 3) {
                EXPECT_FALSE(batched[i].has_value());
                EXPECT_NE(errors[i].find("exceed"), std::string::npos) << errors[i];
                continue;
            }
            ASSERT_TRUE(batched[i].has_value()) << errors[i];
            EXPECT_TRUE(sameResult(*batched[i], alone[i]))
                << GetParam() << ": sentence " << i << " with " << members << " members";
        }
        EXPECT_LT(batch.products(), batch.requests()) << "no product was shared";
    }
}

// Encoder and decoder, absolute and rotary positions, GQA, QK-norm per head and over the whole
// projection (OLMo-2), half-precision weights widened per product, a parallel residual.
INSTANTIATE_TEST_SUITE_P(Checkpoints, ProductBatchBits,
                         ::testing::Values("bert_f32", "gpt2_f32", "llama3_gqa4_f32",
                                           "qwen3_gqa_qknorm_f32", "olmo2_f32", "bert_bf16",
                                           "gptneox_parallel_f16"),
                         testing::paramName);

TEST(ProductBatch, APassWithoutMembershipNeverWaits) {
    const auto m = model::loadModel(kCheckpoints / "gpt2_f32");
    ops::ProductBatch batch(1);
    const ops::ProductBatch::Member joined(batch);  // the only member: its products run at once
    const forward::ForwardResult r = forward::runForward(*m, sentences(*m).front());
    EXPECT_EQ(batch.products(), batch.requests());
    EXPECT_GT(batch.products(), 0);
    std::optional<forward::ForwardResult> other;
    std::thread([&] { other = forward::runForward(*m, sentences(*m).front()); }).join();
    ASSERT_TRUE(other.has_value());
    EXPECT_TRUE(sameResult(r, *other));
}

}  // namespace
}  // namespace attnscope
