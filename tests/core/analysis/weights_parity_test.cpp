// Weight-space circuit scores (issue 34; methods.md §11.2, §12.4) against the independent
// reference (tests/reference/weights_reference.py: weights_circuits.safetensors beside each
// checkpoint, TransformerLens's folding and centring): QK/OV spectra, OV copying, positional
// previous-token score and Q/K/V composition, within 1e-6.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "../support/reference_file.h"
#include "attnscope/analysis/weight_circuits.h"
#include "attnscope/base/error.h"

namespace attnscope::analysis {
namespace {

namespace fs = std::filesystem;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

const std::vector<std::string> kCases = {"gpt2_f32",
                                         "llama_gqa2_headdim_bf16",
                                         "gemma2_window_softcap_f32",
                                         "qwen3_gqa_qknorm_f32",
                                         "gptneox_parallel_f16",
                                         "bert_f32"};

constexpr double kTolerance = 1e-6;

void expectSame(double ours, float theirs, const std::string& what) {
    if (std::isnan(theirs)) {
        EXPECT_TRUE(std::isnan(ours)) << what << ": " << ours << ", the reference has NaN";
        return;
    }
    EXPECT_NEAR(ours, theirs, kTolerance * std::max(1.0, std::abs(double(theirs)))) << what;
}

class WeightScores : public ::testing::TestWithParam<std::string> {};

TEST_P(WeightScores, MatchTheReference) {
    const fs::path dir = kCheckpoints / GetParam();
    const auto m = model::loadModel(dir);
    const io::SafetensorsFile ref(dir / "weights_circuits.safetensors");
    const WeightCircuits w = weightCircuits(*m);
    const auto qk = testing::floats(ref, "qk_singular");
    const auto ov = testing::floats(ref, "ov_singular");
    const auto copying = testing::floats(ref, "copying");
    const auto positional = testing::floats(ref, "pos_prev");
    const std::size_t dk = static_cast<std::size_t>(m->spec.headDimK);
    const std::size_t dv = static_cast<std::size_t>(m->spec.headDimV);
    ASSERT_EQ(w.heads.size() * dk, qk.size());
    for (std::size_t h = 0; h < w.heads.size(); ++h) {
        const std::string head = GetParam() + " head " + std::to_string(h);
        for (std::size_t k = 0; k < dk; ++k) {
            expectSame(w.heads[h].qkSingular[k], qk[h * dk + k],
                       head + " qk s" + std::to_string(k));
        }
        for (std::size_t k = 0; k < dv; ++k) {
            expectSame(w.heads[h].ovSingular[k], ov[h * dv + k],
                       head + " ov s" + std::to_string(k));
        }
        expectSame(w.heads[h].copying, copying[h], head + " copying");
        expectSame(w.heads[h].positionalPrevious, positional[h], head + " pos_prev");
    }
    for (const auto& [name, ours] :
         {std::pair{"comp_q", &w.compQ}, {"comp_k", &w.compK}, {"comp_v", &w.compV}}) {
        const auto theirs = testing::floats(ref, name);
        ASSERT_EQ(theirs.size(), ours->size());
        for (std::size_t i = 0; i < theirs.size(); ++i) {
            expectSame((*ours)[i], theirs[i],
                       GetParam() + " " + name + " [" + std::to_string(i) + "]");
        }
    }
    expectSame(w.baseline, std::stof(ref.metadata().at("baseline")), "baseline");
}

INSTANTIATE_TEST_SUITE_P(Reference, WeightScores, ::testing::ValuesIn(kCases),
                         [](const auto& param) { return param.param; });

// Issue 34 step 2: the progress runs on through the composition, in steps, instead of stopping
// at one half after the heads and jumping to 1.
TEST(WeightCircuitsProgress, CoversTheComposition) {
    const auto m = model::loadModel(kCheckpoints / "gpt2_f32");
    std::vector<double> seen;
    weightCircuits(*m, {}, [&seen](double f) { seen.push_back(f); });
    ASSERT_FALSE(seen.empty());
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
    EXPECT_DOUBLE_EQ(seen.back(), 1.0);
    const auto heads = static_cast<std::size_t>(m->spec.nLayers * m->spec.nHeads);
    EXPECT_GT(seen.size(), 2 * heads) << "the composition reports its steps too";
    for (std::size_t i = 1; i < seen.size(); ++i) {
        EXPECT_LT(seen[i] - seen[i - 1], 0.5) << "report " << i;
    }
}

}  // namespace
}  // namespace attnscope::analysis
