// Direct logit attribution and the logit lens against the independent PyTorch reference
// (tests/reference/circuits_reference.py: circuits_1.safetensors beside each checkpoint), term
// by term and stage by stage, and the identities methods.md §12 states: the terms add up to the
// logit, the lens' last stage is the model's own output. Issue 34.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/expect_error.h"
#include "../support/max_abs.h"
#include "../support/reference_file.h"
#include "attnscope/analysis/logit_attribution.h"
#include "attnscope/analysis/logit_lens.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/prediction.h"

namespace attnscope::analysis {
namespace {

namespace fs = std::filesystem;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

// Decoders (DLA and lens) and encoders (lens only) the reference covers.
const std::vector<std::string> kDecoders = {"gpt2_f32",
                                            "llama_gqa2_headdim_bf16",
                                            "llama_f32",
                                            "qwen3_gqa_qknorm_f32",
                                            "gemma2_window_softcap_f32",
                                            "olmo2_f32",
                                            "gptneox_parallel_f16",
                                            "phi3_longrope_window_f32"};
const std::vector<std::string> kEncoders = {"bert_f32", "roberta_f32"};

struct Case {
    std::shared_ptr<const model::Model> model;
    forward::ForwardResult pass;
    std::unique_ptr<io::SafetensorsFile> file;  // the reference's outputs

    const io::SafetensorsFile& ref() const { return *file; }
};

Case load(const std::string& name) {
    const fs::path dir = kCheckpoints / name;
    auto m = model::loadModel(dir);
    auto ref = std::make_unique<io::SafetensorsFile>(dir / "circuits_1.safetensors");
    const auto ids = testing::int64s(*ref, "input_ids");
    forward::ForwardOptions o;
    o.keepLayerStates = true;
    auto pass = forward::runForward(*m, {{ids.begin(), ids.end()}, {}}, o);
    return {std::move(m), std::move(pass), std::move(ref)};
}

class DlaParity : public ::testing::TestWithParam<std::string> {};

TEST_P(DlaParity, TermsMatchTheReferenceAndAddUpToTheLogit) {
    const Case c = load(GetParam());
    const auto& meta = c.ref().metadata();
    const auto names = nlohmann::json::parse(meta.at("dla_terms")).get<std::vector<std::string>>();
    const std::int32_t target = std::stoi(meta.at("target"));
    const std::int32_t distractor = std::stoi(meta.at("distractor"));
    const std::vector<float> diff = testing::floats(c.ref(), "dla_diff");
    const std::vector<float> single = testing::floats(c.ref(), "dla_target");
    const std::vector<float> logitDiff = testing::floats(c.ref(), "dla_logit_diff");
    const auto terms = names.size();
    for (int p = 0; p < c.pass.nTokens; ++p) {
        for (const bool withDistractor : {true, false}) {
            const auto a =
                directLogitAttribution(*c.model, c.pass, p, target,
                                       withDistractor ? std::optional(distractor) : std::nullopt);
            checkSum(a);  // the identity: the terms add up to the logit
            ASSERT_EQ(a.terms.size(), terms) << GetParam();
            const std::vector<float>& ref = withDistractor ? diff : single;
            double scale = 1.0;
            for (std::size_t t = 0; t < terms; ++t) {
                scale = std::max(scale, std::abs(double(ref[p * terms + t])));
            }
            for (std::size_t t = 0; t < terms; ++t) {
                EXPECT_EQ(a.terms[t].name(), names[t]) << GetParam();
                EXPECT_NEAR(a.terms[t].value, ref[p * terms + t], 1e-4 * scale)
                    << GetParam() << ", position " << p << ", term " << names[t];
            }
            if (withDistractor) {
                EXPECT_NEAR(a.logit, logitDiff[static_cast<std::size_t>(p)], 1e-4 * scale);
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Decoders, DlaParity, ::testing::ValuesIn(kDecoders));

class LensParity : public ::testing::TestWithParam<std::string> {};

TEST_P(LensParity, EveryStageMatchesTheReference) {
    const Case c = load(GetParam());
    const std::vector<float> ref = testing::floats(c.ref(), "lens_logits");
    const int stages = c.model->spec.nLayers + 1;
    const auto vocab = static_cast<std::size_t>(c.model->spec.vocabSize);
    const auto n = static_cast<std::size_t>(c.pass.nTokens);
    ASSERT_EQ(ref.size(), static_cast<std::size_t>(stages) * n * vocab) << GetParam();
    for (int s = 0; s < stages; ++s) {
        const Matrix mine = lensLogits(*c.model, c.pass, s);
        const std::vector<float> theirs(
            ref.begin() + static_cast<std::ptrdiff_t>(s * n * vocab),
            ref.begin() + static_cast<std::ptrdiff_t>((s + 1) * n * vocab));
        EXPECT_LE(testing::maxAbsDiff(mine.data(), theirs) / std::max(1.0, testing::maxAbs(theirs)),
                  1e-4)
            << GetParam() << ", stage " << s;
        // Probabilities within 1e-5.
        for (std::size_t p = 0; p < n; ++p) {
            const Eigen::VectorXd a =
                mine.row(static_cast<Eigen::Index>(p)).transpose().cast<double>();
            Eigen::VectorXd b(static_cast<Eigen::Index>(vocab));
            for (std::size_t v = 0; v < vocab; ++v) {
                b[static_cast<Eigen::Index>(v)] = theirs[p * vocab + v];
            }
            const Eigen::ArrayXd pa =
                (a.array() - a.maxCoeff()).exp() / (a.array() - a.maxCoeff()).exp().sum();
            const Eigen::ArrayXd pb =
                (b.array() - b.maxCoeff()).exp() / (b.array() - b.maxCoeff()).exp().sum();
            EXPECT_LE((pa - pb).abs().maxCoeff(), 1e-5) << GetParam() << ", stage " << s;
        }
    }
    // The last stage is the model's own output, bit for bit.
    const Matrix own = forward::vocabularyLogits(*c.model, c.pass.hidden);
    EXPECT_TRUE(lensLogits(*c.model, c.pass, stages - 1) == own) << GetParam();
    const LogitLens lens = logitLens(*c.model, c.pass, 3);
    for (int p = 0; p < c.pass.nTokens; ++p) {
        const LensCell& last = lens.at(stages - 1, p);
        EXPECT_EQ(last.targetRank, 1);
        EXPECT_EQ(last.klFromFinal, 0.0);
        EXPECT_EQ(last.top.front().id, last.target);
    }
}

INSTANTIATE_TEST_SUITE_P(AllModels, LensParity, ::testing::ValuesIn([] {
                             std::vector<std::string> all = kDecoders;
                             all.insert(all.end(), kEncoders.begin(), kEncoders.end());
                             return all;
                         }()));

TEST(Dla, RefusesPostLnModelsAndWhatItCannotTake) {
    using testing::expectError;
    const Case bert = load("bert_f32");
    expectError<InvalidArgument>([&] { directLogitAttribution(*bert.model, bert.pass, 0, 1); },
                                 {"post-LN models", "no head's output reaches the logit alone"});
    const Case gpt2 = load("gpt2_f32");
    expectError<InvalidArgument>(
        [&] { directLogitAttribution(*gpt2.model, gpt2.pass, gpt2.pass.nTokens, 1); },
        {"position", "is outside the"});
    expectError<InvalidArgument>([&] { directLogitAttribution(*gpt2.model, gpt2.pass, 0, -1); },
                                 {"token id -1 is outside the vocabulary"});
    const auto plain = forward::runForward(*gpt2.model, {gpt2.pass.tokenIds, {}}, {});
    expectError<InvalidArgument>([&] { directLogitAttribution(*gpt2.model, plain, 0, 1); },
                                 {"kept no layer states"});
}

TEST(Lens, RanksAndTiesGoToTheLowerId) {
    const Case c = load("gpt2_f32");
    const int last = c.model->spec.nLayers;
    std::vector<std::int32_t> targets(static_cast<std::size_t>(c.pass.nTokens), 5);
    const LogitLens lens = logitLens(*c.model, c.pass, 4, targets);
    for (int s = 0; s <= last; ++s) {
        const Matrix logits = lensLogits(*c.model, c.pass, s);
        for (int p = 0; p < c.pass.nTokens; ++p) {
            const LensCell& cell = lens.at(s, p);
            int above = 0;
            for (Eigen::Index j = 0; j < logits.cols(); ++j) {
                above += logits(p, j) > logits(p, 5) || (logits(p, j) == logits(p, 5) && j < 5);
            }
            EXPECT_EQ(cell.targetRank, above + 1);
            ASSERT_EQ(cell.top.size(), 4u);
            for (std::size_t i = 1; i < cell.top.size(); ++i) {
                EXPECT_GE(cell.top[i - 1].probability, cell.top[i].probability);
            }
        }
    }
}

}  // namespace
}  // namespace attnscope::analysis
