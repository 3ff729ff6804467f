// The training series' induction probe against the independent reference (issue 34): on the
// three Pythia-shaped series checkpoints, tests/reference/survey_reference.py's S7 (written from
// methods.md §11.2, its own SplitMix64 draws; run_survey_expected.sh, fixture survey_expected)
// must give the sequences the series draws once from its first checkpoint, exactly, and each
// checkpoint's per-head probe within 1e-6.
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/fixture_model.h"
#include "../support/reference_file.h"
#include "attnscope/analysis/checkpoint_series.h"
#include "attnscope/io/safetensors.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;

constexpr double kProbeTol = 1e-6;

TEST(SeriesProbeParity, EveryCheckpointReadsTheReferenceSequencesAndMatchesItsProbe) {
    const std::vector<std::string> steps = {"0", "512", "4096"};
    const auto first = testing::fixtureModel("pythia_series_step0_f32");
    analysis::InductionProbeOptions options;  // the defaults the reference ran with
    options.specialIds = {556};               // --special-ids 556; BOS: the vocabulary's, 556
    const analysis::InductionProbe probe = analysis::drawInductionProbe(*first, {}, options);
    ASSERT_EQ(probe.sequences.size(), 4u);
    ASSERT_EQ(probe.length, 10);
    std::vector<std::int64_t> drawn;
    for (const auto& seq : probe.sequences) {
        drawn.insert(drawn.end(), seq.begin(), seq.end());
    }
    for (const std::string& step : steps) {
        const io::SafetensorsFile f(testing::kFixtureDir / "survey" /
                                    ("series_step" + step + ".safetensors"));
        EXPECT_EQ(drawn, testing::int64s(f, "probe_tokens")) << "step" << step;
        const auto m = testing::fixtureModel("pythia_series_step" + step + "_f32");
        const std::vector<std::vector<std::int32_t>> ids = {{556, 300, 301, 302}};
        const auto stats = analysis::trainingStats(*m, ids, {}, probe);
        const auto want = testing::doubles(f, "probe_induction");
        ASSERT_EQ(stats.size(), want.size());
        for (std::size_t h = 0; h < stats.size(); ++h) {
            EXPECT_NEAR(stats[h].inductionProbe, want[h], kProbeTol)
                << "step" << step << ", head " << h / 4 << "-" << h % 4;
        }
    }
}

}  // namespace
}  // namespace attnscope
