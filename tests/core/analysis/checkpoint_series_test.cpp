// Training checkpoints as a series (issue 33): folder names to steps, the series' order and
// refusals, and each checkpoint's per-head statistics against the PyTorch reference's maps of
// the same inputs (make_checkpoints.py's pythia_series_step* cases, linked as step folders);
// the induction probe as the survey's S7, its settings and bidirectional models.
#include "attnscope/analysis/checkpoint_series.h"

#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "../support/executors.h"
#include "../support/expect_error.h"
#include "../support/reference_file.h"
#include "../support/test_files.h"
#include "attnscope/analysis/head_survey.h"
#include "attnscope/analysis/saturation.h"
#include "attnscope/base/error.h"

namespace attnscope::analysis {
namespace {

namespace fs = std::filesystem;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";
constexpr std::int64_t kSteps[] = {0, 512, 4096};

TEST(CheckpointSeries, StepsFromFolderNames) {
    EXPECT_EQ(stepOfName("step1000"), 1000);
    EXPECT_EQ(stepOfName("Step-2000"), 2000);
    EXPECT_EQ(stepOfName("global_step143000"), 143000);
    EXPECT_EQ(stepOfName("checkpoint-500"), 500);
    EXPECT_EQ(stepOfName("pythia-70m-step3000"), 3000);
    EXPECT_EQ(stepOfName("main"), std::nullopt);
    EXPECT_EQ(stepOfName("stepper"), std::nullopt);
    EXPECT_EQ(stepOfName("step99999999999999999999"), std::nullopt);  // beyond int64
}

// A parent folder whose step<N> entries link to the fixture checkpoints.
struct SeriesFolder {
    testing::ScratchDir dir;

    SeriesFolder() {
        for (const std::int64_t step : kSteps) {
            fs::create_directory_symlink(
                kCheckpoints / ("pythia_series_step" + std::to_string(step) + "_f32"),
                dir.path() / ("step" + std::to_string(step)));
        }
        fs::create_directory(dir.path() / "logs");  // no step: not a checkpoint
    }
};

TEST(CheckpointSeries, OrdersAFolderByStepNotByName) {
    const SeriesFolder folder;
    const auto series = seriesFromFolder(folder.dir.path());
    ASSERT_EQ(series.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(series[i].step, kSteps[i]);
        EXPECT_EQ(series[i].label, "step" + std::to_string(kSteps[i]));
    }
}

TEST(CheckpointSeries, RefusesWhatIsNoSeries) {
    using testing::expectError;
    testing::ScratchDir tmp;
    expectError<InvalidArgument>([&] { seriesFromFolder(tmp.path() / "none"); },
                                 {"none: not a folder of checkpoints"});
    fs::create_directory(tmp.path() / "step10");
    expectError<InvalidArgument>([&] { seriesFromFolder(tmp.path()); },
                                 {"1 checkpoint folders", "a series needs two or more"});
    fs::create_directory(tmp.path() / "checkpoint-10");
    expectError<InvalidArgument>([&] { seriesFromFolder(tmp.path()); }, {"are both step 10"});
    expectError<InvalidArgument>([&] { seriesFromPaths({tmp.path()}); }, {"two or more"});
    const auto a = model::loadModel(kCheckpoints / "pythia_series_step0_f32");
    const auto b = model::loadModel(kCheckpoints / "gptneox_sequential_f32");
    expectError<InvalidArgument>([&] { checkSameShape(a->spec, b->spec, "step7"); },
                                 {"step7: 3 layers where the series' first checkpoint has 2"});
}

// The statistics from the reference's maps of one input, as checkpoint_series.h defines them.
struct Expected {
    std::vector<double> entropy, maxLogit, sink, prev;
    std::vector<std::int64_t> oneHot;
};

void addExpected(const testing::Reference& ref, Expected& e, bool first) {
    const auto n = static_cast<int>(ref.inputIds.size());
    const auto heads = static_cast<int>(ref.attentionShape[0] * ref.attentionShape[1]);
    if (first) {
        e = {std::vector<double>(heads), std::vector<double>(heads), std::vector<double>(heads),
             std::vector<double>(heads), std::vector<std::int64_t>(heads)};
    }
    for (int h = 0; h < heads; ++h) {
        const float* p = ref.attention.data() + static_cast<std::ptrdiff_t>(h) * n * n;
        const float* z = ref.logits.data() + static_cast<std::ptrdiff_t>(h) * n * n;
        double sink = 0, prev = 0, mass = 0;
        for (int i = 0; i < n; ++i) {
            float top = 0;
            for (int j = 0; j <= i; ++j) {  // causal: the allowed keys
                const double w = p[i * n + j];
                e.entropy[h] -= w > 0 ? w * std::log(w) : 0.0;
                e.maxLogit[h] = std::max(e.maxLogit[h], std::abs(double(z[i * n + j])));
                top = std::max(top, p[i * n + j]);
                mass += w;
            }
            ASSERT_GT(std::abs(top - kOneHotWeight), 1e-5);
            e.oneHot[h] += top >= kOneHotWeight ? 1 : 0;
            sink += i > 0 ? p[i * n] : 0.0;
            prev += i > 0 ? p[i * n + i - 1] : 0.0;
        }
        e.sink[h] += sink / (n - 1);
        e.prev[h] += prev / mass;
    }
}

TEST(CheckpointSeries, EachCheckpointMatchesTheReferenceMaps) {
    const SeriesFolder folder;
    const auto series = seriesFromFolder(folder.dir.path());
    for (const SeriesCheckpoint& c : series) {
        const auto m = model::loadModel(c.path);
        std::vector<std::vector<std::int32_t>> sequences;
        Expected e;
        std::int64_t rows = 0;
        for (int k = 0; k < 2; ++k) {
            const auto ref = testing::readReference(
                c.path / ("reference_" + std::to_string(k) + ".safetensors"));
            sequences.push_back(ref.inputIds);
            rows += static_cast<std::int64_t>(ref.inputIds.size());
            addExpected(ref, e, k == 0);
        }
        forward::ForwardOptions lean;
        lean.mapBudgetBytes = 0;  // heads recomputed one by one: the same numbers
        const auto stats = trainingStats(*m, sequences, lean);
        ASSERT_EQ(stats.size(), e.entropy.size());
        for (std::size_t h = 0; h < stats.size(); ++h) {
            const std::string what = c.label + ", head " + std::to_string(h);
            EXPECT_NEAR(stats[h].meanEntropy, e.entropy[h] / rows, 1e-5) << what;
            EXPECT_NEAR(stats[h].maxAbsLogit, e.maxLogit[h], 1e-4 * std::max(1.0, e.maxLogit[h]))
                << what;
            EXPECT_NEAR(stats[h].sinkMass, e.sink[h] / 2, 1e-5) << what;
            EXPECT_NEAR(stats[h].prevTokenScore, e.prev[h] / 2, 1e-5) << what;
            EXPECT_EQ(stats[h].oneHotShare, static_cast<float>(double(e.oneHot[h]) / rows)) << what;
        }
    }
}

// The induction probe (issue 34) is the survey's S7, not a copy of it: on the same model with
// the same settings, the series' probe is the survey's probe_induction, sequences included.
// (Its values against the independent reference: series_probe_parity_test.cpp.)
TEST(CheckpointSeries, InductionProbeIsTheSurveysProbe) {
    const auto m = model::loadModel(kCheckpoints / "pythia_series_step512_f32");
    const std::vector<std::vector<std::int32_t>> ids = {{556, 300, 301, 302, 300, 301}};
    InductionProbeOptions options;
    options.repeats = 3;
    options.length = 5;
    options.seed = 7;
    options.specialIds = {556};
    const InductionProbe probe = drawInductionProbe(*m, ids, options);
    SurveyOptions survey;
    survey.specialIds = {556};
    survey.probeRepeats = 3;
    survey.probeLength = 5;
    survey.probeSeed = 7;
    const HeadSurvey s = surveyCorpus(*m, ids, survey, testing::runInline);
    EXPECT_EQ(probe.sequences, s.probeSequences);
    const auto stats = trainingStats(*m, ids, {}, probe);
    const auto& want = s.score("probe_induction");
    ASSERT_EQ(stats.size(), want.size());
    for (std::size_t h = 0; h < stats.size(); ++h) {
        EXPECT_EQ(stats[h].inductionProbe, static_cast<float>(want[h])) << "head " << h;
    }
    // Without a probe the statistic has no value.
    EXPECT_TRUE(std::isnan(trainingStats(*m, ids, {}).front().inductionProbe));
}

TEST(CheckpointSeries, InductionProbeIsNotApplicableToBidirectionalModels) {
    const auto bert = model::loadModel(kCheckpoints / "bert_f32");
    const std::vector<std::vector<std::int32_t>> ids = {{101, 300, 301, 102}};
    EXPECT_TRUE(drawInductionProbe(*bert, ids).sequences.empty());
    // Even with sequences drawn from a causal model: S7 reads causal maps only.
    const auto causal = model::loadModel(kCheckpoints / "pythia_series_step0_f32");
    InductionProbeOptions options;
    options.repeats = 2;
    options.length = 3;
    const InductionProbe probe = drawInductionProbe(*causal, {}, options);
    ASSERT_EQ(probe.sequences.size(), 2u);
    for (const HeadTrainingStats& h : trainingStats(*bert, ids, {}, probe)) {
        EXPECT_TRUE(std::isnan(h.inductionProbe));
    }
}

TEST(CheckpointSeries, InductionProbeRefusesBadSettings) {
    using testing::expectError;
    const auto m = model::loadModel(kCheckpoints / "pythia_series_step0_f32");  // 32 positions
    InductionProbeOptions options;
    options.repeats = -1;
    expectError<InvalidArgument>([&] { drawInductionProbe(*m, {}, options); },
                                 {"induction probe", "repeats >= 0"});
    options.repeats = 2;
    options.length = 1;
    expectError<InvalidArgument>([&] { drawInductionProbe(*m, {}, options); },
                                 {"at least 2 tokens"});
    options.length = 16;  // 33 tokens
    expectError<InvalidArgument>([&] { drawInductionProbe(*m, {}, options); },
                                 {"induction probe: a probe of length 16 does not fit"});
    options.length = 10;
    options.bosId = 557;
    expectError<InvalidArgument>([&] { drawInductionProbe(*m, {}, options); },
                                 {"probe BOS id 557 is outside the vocabulary"});
    options.repeats = 0;  // no probe: nothing drawn, nothing checked
    EXPECT_TRUE(drawInductionProbe(*m, {}, options).sequences.empty());
}

}  // namespace
}  // namespace attnscope::analysis
