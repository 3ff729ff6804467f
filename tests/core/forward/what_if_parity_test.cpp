// The saturation lab's what-ifs (QK-norm off or unit, soft-cap off or at a value, the scale)
// and its per-row logit maxima against the independent PyTorch reference run with the same
// knobs (tests/reference/decoder_parts.py): the manifest's "whatifs" of the issue-33 cases, and
// each case's plain reference for the unnormed, scaled and capped stages of the model itself.
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "../support/manifest.h"
#include "../support/max_abs.h"
#include "../support/reference_file.h"
#include "attnscope/analysis/saturation.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/head_record.h"
#include "attnscope/forward/prediction.h"
#include "attnscope/model/model.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;
using testing::maxAbs;
using testing::maxAbsDiff;

constexpr double kProbTolerance = 1e-5;
constexpr double kRelTolerance = 1e-4;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

forward::ForwardOptions optionsOf(const nlohmann::json& w) {
    forward::ForwardOptions o;
    const std::string qk = w.at("qk_norm");
    o.whatIf.qkNorm = qk == "off"    ? forward::QkNormChoice::Off
                      : qk == "unit" ? forward::QkNormChoice::Unit
                                     : forward::QkNormChoice::Model;
    const nlohmann::json& cap = w.at("softcap");
    if (cap.is_null()) {
        o.whatIf.softcap = 0.0f;
    } else if (cap.is_number()) {
        o.whatIf.softcap = cap.get<float>();
    }
    if (w.at("scale").is_number()) {
        o.scale = w.at("scale").get<float>();
    }
    o.recordUnnormed = true;
    return o;
}

// Row maxima of |logits| over the allowed keys, from a reference tensor [L, H, n, n].
std::vector<float> referenceRowMaxima(const std::vector<float>& logits,
                                      const forward::ForwardResult& r) {
    const int n = r.nTokens;
    std::vector<float> out;
    for (int layer = 0; layer < r.nLayers; ++layer) {
        const BoolMatrix& allowed = r.allowedFor(layer);
        for (int head = 0; head < r.nHeads; ++head) {
            const float* map = logits.data() + headIndex({layer, head}, r.nHeads) * n * n;
            for (int q = 0; q < n; ++q) {
                float m = 0.0f;
                for (int k = 0; k < n; ++k) {
                    if (allowed(q, k) != 0) {
                        m = std::max(m, std::abs(map[q * n + k]));
                    }
                }
                out.push_back(m);
            }
        }
    }
    return out;
}

// The three stages of every row, against the reference's logits, raw_logits and unnormed ones.
void expectStages(const forward::ForwardResult& r, const io::SafetensorsFile& ref,
                  const std::string& what) {
    const std::pair<const std::vector<float>*, const char*> stages[] = {
        {&r.rowMaxAbsLogit, "logits"},
        {&r.rowMaxAbsScaled, "raw_logits"},
        {&r.rowMaxAbsUnnormed, "unnormed_logits"}};
    for (const auto& [mine, name] : stages) {
        const std::vector<float> expected = referenceRowMaxima(testing::floats(ref, name), r);
        ASSERT_EQ(mine->size(), expected.size()) << what << ": " << name;
        EXPECT_LE(maxAbsDiff(mine->data(), expected) / std::max(1.0, maxAbs(expected)),
                  kRelTolerance)
            << what << ": row maxima of |" << name << "|";
    }
}

// One-hot rows counted from the reference's probabilities, exactly; and the mean entropy.
void expectSaturation(const forward::ForwardResult& r, const std::vector<float>& probs,
                      const std::string& what) {
    const int n = r.nTokens;
    for (const analysis::HeadSaturation& s : analysis::saturationStats(r)) {
        const float* map = probs.data() + headIndex(s.head, r.nHeads) * n * n;
        std::int64_t oneHot = 0;
        double entropy = 0;
        for (int q = 0; q < n; ++q) {
            float top = 0;
            for (int k = 0; k < n; ++k) {
                const double p = map[q * n + k];
                top = std::max(top, map[q * n + k]);
                entropy -= p > 0 ? p * std::log(p) : 0.0;
            }
            // A weight within the tolerance of the threshold could fall either side.
            ASSERT_GT(std::abs(top - analysis::kOneHotWeight), kProbTolerance) << what;
            oneHot += top >= analysis::kOneHotWeight ? 1 : 0;
        }
        EXPECT_EQ(s.rows, n) << what;
        EXPECT_EQ(s.oneHotRows, oneHot) << what << ", head " << s.head.toString();
        EXPECT_NEAR(s.meanEntropy, entropy / n, kRelTolerance) << what;
    }
}

void expectParity(const model::Model& model, const fs::path& file,
                  const forward::ForwardOptions& options, const std::string& what) {
    const auto ref = testing::readReference(file);
    const io::SafetensorsFile tensors(file);
    const auto r = forward::runForward(model, {ref.inputIds, {}}, options);
    ASSERT_EQ(r.probs.size(), ref.attention.size()) << what;
    EXPECT_LE(maxAbsDiff(r.probs.data(), ref.attention), kProbTolerance) << what;
    EXPECT_LE(maxAbsDiff(r.logits.data(), ref.logits) / std::max(1.0, maxAbs(ref.logits)),
              kRelTolerance)
        << what;
    EXPECT_LE(maxAbsDiff(r.hidden.data(), ref.hidden) / std::max(1.0, maxAbs(ref.hidden)),
              kRelTolerance)
        << what;
    if (!ref.lmLogits.empty()) {
        const Matrix lm = forward::vocabularyLogits(model, r.hidden);
        EXPECT_LE(maxAbsDiff(lm.data(), ref.lmLogits) / std::max(1.0, maxAbs(ref.lmLogits)),
                  kRelTolerance)
            << what;
    }
    expectStages(r, tensors, what);
    expectSaturation(r, ref.attention, what);
}

std::vector<nlohmann::json> entriesWithWhatIfs() {
    std::vector<nlohmann::json> out;
    for (const nlohmann::json& e : testing::readManifest(kCheckpoints)) {
        if (e.contains("whatifs")) {
            out.push_back(e);
        }
    }
    return out;
}

TEST(WhatIfParity, MatchesTheReferenceRunWithTheSameKnobs) {
    int checked = 0;
    for (const nlohmann::json& e : entriesWithWhatIfs()) {
        const std::string name = e.at("case");
        const auto model = model::loadModel(kCheckpoints / name);
        for (const nlohmann::json& w : e.at("whatifs")) {
            const std::string what = "case " + name + ", what-if " + std::string(w.at("tag"));
            expectParity(*model, kCheckpoints / name / std::string(w.at("file")), optionsOf(w),
                         what);
            ++checked;
        }
    }
    // Every knob: QK-norm off and unit, soft-cap off and at a value, a typed scale.
    EXPECT_GE(checked, 11);
}

TEST(WhatIfParity, TheModelsOwnStagesMatchThePlainReference) {
    int checked = 0;
    for (const nlohmann::json& e : entriesWithWhatIfs()) {
        const std::string name = e.at("case");
        const auto model = model::loadModel(kCheckpoints / name);
        forward::ForwardOptions options;
        options.recordUnnormed = true;
        expectParity(*model, kCheckpoints / name / "reference_1.safetensors", options,
                     "case " + name + ", the model as it is");
        ++checked;
    }
    EXPECT_GE(checked, 6);
}

// A recomputed head (no maps kept) and a restarted ablation run with the result's what-ifs.
TEST(WhatIfParity, RecomputeAndRestartKeepTheWhatIf) {
    const std::string name = "qwen3_gqa_qknorm_f32";
    const auto model = model::loadModel(kCheckpoints / name);
    const auto ref = testing::readReference(kCheckpoints / name / "reference_1.safetensors");
    forward::ForwardOptions options;
    options.whatIf.qkNorm = forward::QkNormChoice::Unit;
    options.whatIf.softcap = 3.0f;
    options.keepLayerStates = true;
    const auto full = forward::runForward(*model, {ref.inputIds, {}}, options);
    forward::ForwardOptions lean = options;
    lean.mapBudgetBytes = 0;
    const auto noMaps = forward::runForward(*model, {ref.inputIds, {}}, lean);
    const HeadId h{1, 2};
    const auto rec = forward::recomputeHead(*model, noMaps, h);
    EXPECT_TRUE(rec.probs == Matrix(full.attention(h)));
    EXPECT_TRUE(rec.logits == Matrix(full.logitsOf(h)));

    forward::ForwardOptions ablate = options;
    ablate.interventions.ablations = {{1, 0, false, forward::AblationKind::Zero}};
    const auto restarted = forward::runForwardFrom(*model, full, {ref.inputIds, {}}, ablate);
    const auto again = forward::runForward(*model, {ref.inputIds, {}}, ablate);
    EXPECT_EQ(restarted.probs.size(), again.probs.size());
    EXPECT_TRUE(std::equal(restarted.probs.begin(), restarted.probs.end(), again.probs.begin()));
    EXPECT_EQ(restarted.rowMaxAbsScaled, again.rowMaxAbsScaled);

    forward::ForwardOptions other = ablate;
    other.whatIf.softcap.reset();
    EXPECT_THROW(forward::runForwardFrom(*model, full, {ref.inputIds, {}}, other), InvalidArgument);
}

TEST(WhatIfParity, RefusesANegativeOrNonFiniteCap) {
    const auto model = model::loadModel(kCheckpoints / "gemma2_window_softcap_f32");
    for (const float cap : {-1.0f, std::nanf(""), INFINITY}) {
        forward::ForwardOptions o;
        o.whatIf.softcap = cap;
        EXPECT_THROW(forward::runForward(*model, {{2, 5, 7}, {}}, o), InvalidArgument) << cap;
    }
}

}  // namespace
}  // namespace attnscope
