// Head-survey files (issue 18): the CSV's one row per head under every score's name, and the
// HDF5 scores, distances, MDS map, options and run attributes, read back with the HDF5 C API.
#include "attnscope/export/survey_export.h"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <hdf5.h>

#include "../support/h5_reader.h"
#include "../support/test_files.h"
#include "attnscope/base/error.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;
using analysis::HeadSurvey;
using testing::H5Reader;

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// 1 layer x 2 heads; score number i of head h is i + h / 4, except a NaN for head 1 of the
// first score.
HeadSurvey smallSurvey() {
    HeadSurvey s;
    s.nLayers = 1;
    s.nHeads = 2;
    const std::vector<std::string>& names = analysis::surveyScoreNames();
    for (std::size_t i = 0; i < names.size(); ++i) {
        const auto base = static_cast<double>(i);
        s.scores[names[i]] = {base, i == 0 ? kNaN : base + 0.25};
    }
    s.distance = {0.0, 0.5, 0.5, 0.0};
    s.mds = {-0.25, 0.0, 0.25, 0.0};
    s.mdsEigenvalues = {0.125, 0.0};
    s.sentences = 7;
    s.skipped = 1;
    return s;
}

analysis::SurveyOptions someOptions() {
    analysis::SurveyOptions o;
    o.specialIds = {101, 102};
    o.periodIds = {1012};
    o.sinkEps = 0.25;
    o.positionalThreshold = 0.75;
    o.rareTop = 50;
    o.probeRepeats = 3;
    o.probeLength = 6;
    o.probeSeed = 11;
    o.bosId = 5;
    return o;
}

TEST(SurveyCsv, WritesOneRowPerHeadUnderEveryScoreName) {
    testing::ScratchDir tmp;
    const fs::path path = tmp.path() / "survey.csv";
    exporting::writeSurveyCsv(path, smallSurvey());
    const std::vector<std::string>& names = analysis::surveyScoreNames();
    std::string header = "layer,head";
    std::string head0 = "0,0";
    std::string head1 = "0,1";
    for (std::size_t i = 0; i < names.size(); ++i) {
        header.append(",").append(names[i]);
        head0.append(",").append(std::to_string(i));
        head1.append(",").append(i == 0 ? std::string("nan") : std::to_string(i) + ".25");
    }
    EXPECT_EQ(testing::readFile(path), header + "\n" + head0 + "\n" + head1 + "\n");
}

TEST(SurveyH5, WritesScoresDistancesMapAndOptions) {
    testing::ScratchDir tmp;
    const fs::path path = tmp.path() / "survey.h5";
    const HeadSurvey s = smallSurvey();
    exporting::writeSurveyH5(path, s, someOptions(), {"models/bert", "ewt.conllu", 3});
    const H5Reader h5(path);
    ASSERT_TRUE(h5.ok());
    for (const std::string& name : analysis::surveyScoreNames()) {
        const std::string set = "scores/" + name;
        EXPECT_EQ(h5.dims(set.c_str()), (std::vector<hsize_t>{1, 2})) << name;
        const std::vector<double> values = h5.values<double>(set.c_str(), H5T_NATIVE_DOUBLE);
        ASSERT_EQ(values.size(), 2u) << name;
        const std::vector<double>& expected = s.score(name);
        for (std::size_t k = 0; k < 2; ++k) {
            EXPECT_TRUE(values[k] == expected[k] ||
                        (std::isnan(values[k]) && std::isnan(expected[k])))
                << name << " " << k;
        }
    }
    EXPECT_EQ(h5.dims("distance"), (std::vector<hsize_t>{2, 2}));
    EXPECT_EQ(h5.values<double>("distance", H5T_NATIVE_DOUBLE), s.distance);
    EXPECT_EQ(h5.dims("mds"), (std::vector<hsize_t>{2, 2}));
    EXPECT_EQ(h5.values<double>("mds", H5T_NATIVE_DOUBLE), s.mds);
    EXPECT_EQ(h5.values<double>("mds_eigenvalues", H5T_NATIVE_DOUBLE), s.mdsEigenvalues);
    EXPECT_FALSE(h5.hasAttribute("mds_error"));
    EXPECT_EQ(h5.values<std::int64_t>("options/special_ids", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{101, 102}));
    EXPECT_TRUE(h5.exists("options/punct_ids"));
    EXPECT_TRUE(h5.values<std::int64_t>("options/punct_ids", H5T_NATIVE_INT64).empty());
    EXPECT_EQ(h5.values<std::int64_t>("options/period_ids", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{1012}));
    EXPECT_EQ(h5.text("model"), "models/bert");
    EXPECT_EQ(h5.text("corpus"), "ewt.conllu");
    EXPECT_FALSE(h5.text("attnscope_version").empty());
    EXPECT_EQ(h5.number<std::int64_t>("sentences", H5T_NATIVE_INT64), 7);
    EXPECT_EQ(h5.number<std::int64_t>("skipped", H5T_NATIVE_INT64), 1);
    EXPECT_EQ(h5.number<std::int64_t>("too_long", H5T_NATIVE_INT64), 3);
    EXPECT_EQ(h5.number<double>("sink_eps", H5T_NATIVE_DOUBLE), 0.25);
    EXPECT_EQ(h5.number<double>("positional_threshold", H5T_NATIVE_DOUBLE), 0.75);
    EXPECT_EQ(h5.number<std::int64_t>("rare_top", H5T_NATIVE_INT64), 50);
    EXPECT_EQ(h5.number<std::int64_t>("probe_repeats", H5T_NATIVE_INT64), 3);
    EXPECT_EQ(h5.number<std::int64_t>("probe_length", H5T_NATIVE_INT64), 6);
    EXPECT_EQ(h5.number<std::uint64_t>("probe_seed", H5T_NATIVE_UINT64), 11u);
    EXPECT_EQ(h5.number<std::int64_t>("probe_bos", H5T_NATIVE_INT64), 5);
}

// Issue 30: the probe's sequences, the unit of every score (sink_rate a fraction, where Gu et al.
// print percent) and why rare-word scores are undefined are in the file.
TEST(SurveyH5, KeepsTheProbeSequencesUnitsAndTheRareWordReason) {
    testing::ScratchDir tmp;
    const fs::path path = tmp.path() / "survey.h5";
    HeadSurvey s = smallSurvey();
    s.probeSequences = {{5, 30, 31, 30, 31}, {5, 40, 41, 40, 41}};
    s.rareError = "the corpus has 4 distinct ids, not more than rare-top 500";
    exporting::writeSurveyH5(path, s, someOptions(), {});
    const H5Reader h5(path);
    ASSERT_TRUE(h5.ok());
    EXPECT_EQ(h5.dims("probe/tokens"), (std::vector<hsize_t>{2, 5}));
    EXPECT_EQ(h5.values<std::int64_t>("probe/tokens", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{5, 30, 31, 30, 31, 5, 40, 41, 40, 41}));
    EXPECT_NE(h5.text("rule", "probe/tokens").find("SplitMix64 seeded with probe_seed + r"),
              std::string::npos);
    EXPECT_EQ(h5.text("unit", "scores/sink_rate"),
              "fraction of sentences (0-1; Gu et al. print 100x)");
    EXPECT_EQ(h5.text("unit", "scores/entropy"), "nats");
    for (const std::string& name : analysis::surveyScoreNames()) {
        EXPECT_TRUE(h5.hasAttribute("unit", ("scores/" + name).c_str())) << name;
    }
    EXPECT_EQ(h5.text("rare_error"), s.rareError);
    EXPECT_EQ(h5.number<std::int64_t>("rare_sentences", H5T_NATIVE_INT64), 0);
    const fs::path plain = tmp.path() / "plain.h5";
    exporting::writeSurveyH5(plain, smallSurvey(), someOptions(), {});
    EXPECT_FALSE(H5Reader(plain).exists("probe"));
    EXPECT_FALSE(H5Reader(plain).hasAttribute("rare_error"));
    s.probeSequences[1].pop_back();
    EXPECT_THROW(exporting::writeSurveyH5(tmp.path() / "bad.h5", s, someOptions(), {}),
                 InvalidArgument);
}

// A CSV keeps the probe's sequences beside the table, one row per token.
TEST(SurveyCsv, WritesTheProbeSequencesBesideTheTable) {
    testing::ScratchDir tmp;
    const fs::path path = tmp.path() / "survey.csv";
    EXPECT_EQ(exporting::surveyProbeCsvPath(path), tmp.path() / "survey.probe.csv");
    exporting::writeSurveyCsv(path, smallSurvey());
    EXPECT_FALSE(fs::exists(tmp.path() / "survey.probe.csv"));  // no probe ran
    HeadSurvey s = smallSurvey();
    s.probeSequences = {{5, 30, 30}, {5, 40, 40}};
    exporting::writeSurveyCsv(path, s);
    EXPECT_EQ(testing::readFile(tmp.path() / "survey.probe.csv"),
              "repeat,position,id\n0,0,5\n0,1,30\n0,2,30\n1,0,5\n1,1,40\n1,2,40\n");
}

TEST(SurveyH5, LeavesTheMapOutAndSaysWhyWhenItFailed) {
    testing::ScratchDir tmp;
    const fs::path path = tmp.path() / "nomap.h5";
    HeadSurvey s = smallSurvey();
    s.mds.clear();
    s.mdsEigenvalues.clear();
    s.distance[1] = kNaN;
    s.mdsError = "heads 0-0 and 0-1 share no row";
    analysis::SurveyOptions options = someOptions();
    options.bosId.reset();
    exporting::writeSurveyH5(path, s, options, {});
    const H5Reader h5(path);
    ASSERT_TRUE(h5.ok());
    EXPECT_FALSE(h5.exists("mds"));
    EXPECT_FALSE(h5.exists("mds_eigenvalues"));
    EXPECT_EQ(h5.text("mds_error"), "heads 0-0 and 0-1 share no row");
    EXPECT_FALSE(h5.hasAttribute("probe_bos"));
    EXPECT_TRUE(std::isnan(h5.values<double>("distance", H5T_NATIVE_DOUBLE)[1]));
}

exporting::SurveyExtras someExtras() {
    exporting::SurveyExtras e;
    e.labels = {{{"prev", "previous token", "L1", "prev = 0.9", 0.9},
                 {"pos-1", "positional -1", "L4", "0.95", 0.95}},
                {}};
    e.bestRelations = {{"det", 0.75, 0.5, 1}, {}};
    return e;
}

TEST(SurveyCsv, LabelsAndBestRelationsFollowTheScores) {
    testing::ScratchDir tmp;
    const fs::path path = tmp.path() / "survey.csv";
    exporting::writeSurveyCsv(path, smallSurvey(), someExtras());
    const std::string csv = testing::readFile(path);
    const std::string header = csv.substr(0, csv.find('\n'));
    EXPECT_NE(header.find(",rare_top2,labels,dep_relation,dep_accuracy,dep_baseline,"
                          "dep_baseline_offset"),
              std::string::npos)
        << header;
    EXPECT_NE(csv.find(",prev pos-1,det,0.75,0.5,1\n"), std::string::npos) << csv;
    EXPECT_NE(csv.find(",,,nan,nan,0\n"), std::string::npos) << csv;  // no label, no relation
}

TEST(SurveyH5, LabelsAndBestRelationsAreDatasets) {
    testing::ScratchDir tmp;
    const fs::path path = tmp.path() / "survey.h5";
    exporting::writeSurveyH5(path, smallSurvey(), someOptions(), {}, someExtras());
    const H5Reader h5(path);
    ASSERT_TRUE(h5.ok());
    EXPECT_EQ(h5.strings("labels/tags"), (std::vector<std::string>{"prev pos-1", ""}));
    EXPECT_EQ(h5.strings("dependency/relation"), (std::vector<std::string>{"det", ""}));
    EXPECT_EQ(h5.dims("dependency/accuracy"), (std::vector<hsize_t>{1, 2}));
    const auto accuracy = h5.values<double>("dependency/accuracy", H5T_NATIVE_DOUBLE);
    EXPECT_EQ(accuracy[0], 0.75);
    EXPECT_TRUE(std::isnan(accuracy[1]));
    EXPECT_EQ(h5.values<std::int64_t>("dependency/baseline_offset", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{1, 0}));
    const fs::path plain = tmp.path() / "plain.h5";
    exporting::writeSurveyH5(plain, smallSurvey(), someOptions(), {});
    EXPECT_FALSE(H5Reader(plain).exists("labels"));
    EXPECT_FALSE(H5Reader(plain).exists("dependency"));
}

TEST(SurveyExport, RefusesExtrasForAnotherNumberOfHeads) {
    testing::ScratchDir tmp;
    exporting::SurveyExtras e = someExtras();
    e.labels.pop_back();
    EXPECT_THROW(exporting::writeSurveyCsv(tmp.path() / "a.csv", smallSurvey(), e),
                 InvalidArgument);
    e = someExtras();
    e.bestRelations.emplace_back();
    EXPECT_THROW(exporting::writeSurveyH5(tmp.path() / "a.h5", smallSurvey(), {}, {}, e),
                 InvalidArgument);
    EXPECT_FALSE(fs::exists(tmp.path() / "a.csv"));
    EXPECT_FALSE(fs::exists(tmp.path() / "a.h5"));
}

TEST(SurveyExport, RefusesASurveyOfInconsistentShape) {
    testing::ScratchDir tmp;
    const fs::path csv = tmp.path() / "bad.csv";
    const fs::path h5 = tmp.path() / "bad.h5";
    std::vector<HeadSurvey> bad(4, smallSurvey());
    bad[0].scores.erase(analysis::surveyScoreNames().back());
    bad[1].scores.begin()->second.pop_back();
    bad[2].distance.pop_back();
    bad[3].mds.pop_back();
    for (const HeadSurvey& s : bad) {
        try {
            exporting::writeSurveyCsv(csv, s);
            ADD_FAILURE() << "wrote an inconsistent survey";
        } catch (const InvalidArgument& e) {
            EXPECT_NE(std::string(e.what()).find("bad.csv"), std::string::npos) << e.what();
        }
        EXPECT_THROW(exporting::writeSurveyH5(h5, s, {}, {}), InvalidArgument);
    }
    EXPECT_FALSE(fs::exists(csv));
    EXPECT_FALSE(fs::exists(h5));
    EXPECT_THROW(exporting::writeSurveyCsv(tmp.path() / "missing" / "x.csv", smallSurvey()), Error);
}

}  // namespace
}  // namespace attnscope
