// The shipped circuits demo model (resources/circuits_model, issue 34 item 7) against its own
// card: the claims README.md states come from metrics.json, and attnscope-cli must still print
// them on the shipped files — the strongest K-composition (from the previous-token head into an
// induction head), the survey's labels of both heads, a training series `series` reads, and the
// induction bump its induction probe shows.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/csv_fields.h"
#include "../support/run_command.h"
#include "../support/test_files.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;

const fs::path kModel = ATTNSCOPE_CIRCUITS_MODEL;

nlohmann::json metrics() {
    std::ifstream in(kModel / "metrics.json");
    return nlohmann::json::parse(in);
}

std::string headName(const nlohmann::json& h) {
    return std::to_string(h[0].get<int>()) + "-" + std::to_string(h[1].get<int>());
}

// Rows of a CSV file as column name -> field.
std::vector<std::map<std::string, std::string>> csvRecords(const fs::path& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    const auto header = testing::csvFields(line);
    std::vector<std::map<std::string, std::string>> rows;
    while (std::getline(in, line)) {
        const auto fields = testing::csvFields(line);
        std::map<std::string, std::string> row;
        for (std::size_t i = 0; i < header.size() && i < fields.size(); ++i) {
            row[header[i]] = fields[i];
        }
        rows.push_back(row);
    }
    return rows;
}

TEST(CircuitsModel, StrongestKCompositionRunsFromThePreviousTokenHeadAsTheCardSays) {
    const auto m = metrics();
    const auto& claim = m.at("attnscope").at("circuits");
    const std::string prev = headName(m.at("circuit").at("prev_head"));
    const std::string top = claim.at("k_top").get<std::string>();
    ASSERT_EQ(top.substr(0, top.find("->")), prev) << top;

    testing::ScratchDir tmp;
    const fs::path csv = tmp.path() / "circuits.csv";
    const auto run = testing::runCli("circuits " + testing::shellQuoted(kModel) + " --out " +
                                     testing::shellQuoted(csv));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    std::map<std::string, double> k;  // "writer->reader" -> K-composition
    for (const auto& r : csvRecords(csv)) {
        if (r.at("score") == "comp_k" && r.at("layer") < r.at("layer2")) {
            k[r.at("layer") + "-" + r.at("head") + "->" + r.at("layer2") + "-" + r.at("head2")] =
                std::stod(r.at("value"));
        }
    }
    ASSERT_TRUE(k.count(top)) << run.out;
    EXPECT_NEAR(k[top], claim.at("composition").at("K").at(top).get<double>(), 1e-4);
    for (const auto& [pair, score] : k) {
        if (pair != top) {
            EXPECT_LT(score, k[top]) << pair << " against " << top;
        }
    }
    for (const auto& [reader, c] : claim.at("k_from_prev").items()) {
        EXPECT_NEAR(k[prev + "->" + reader], c.at("k").get<double>(), 1e-4) << reader;
    }
    EXPECT_GT(k[top], claim.at("baseline").get<double>());
}

TEST(CircuitsModel, SurveyLabelsThePreviousTokenAndInductionHeadsAsTheCardSays) {
    const auto m = metrics();
    const std::string prev = headName(m.at("circuit").at("prev_head"));
    const std::string induction = headName(m.at("circuit").at("induction_head"));
    std::map<std::string, std::string> claimed;
    for (const auto& h : m.at("attnscope").at("survey_doubled").at("heads")) {
        claimed[std::to_string(h.at("layer").get<int>()) + "-" +
                std::to_string(h.at("head").get<int>())] = h.at("labels").get<std::string>();
    }

    testing::ScratchDir tmp;
    const fs::path csv = tmp.path() / "survey.csv";
    const auto run = testing::runCli("survey " + testing::shellQuoted(kModel) + " " +
                                     testing::shellQuoted(kModel / "doubled_sentences.txt") +
                                     " --out " + testing::shellQuoted(csv) +
                                     " --probe-repeats 10 --probe-length 25 --probe-seed 0");
    ASSERT_EQ(run.exitCode, 0) << run.err;
    std::map<std::string, std::string> labels;
    for (const auto& r : csvRecords(csv)) {
        labels[r.at("layer") + "-" + r.at("head")] = r.at("labels");
    }
    EXPECT_EQ(labels, claimed);
    EXPECT_TRUE(testing::contains(labels[prev], "prev")) << prev << ": " << labels[prev];
    EXPECT_TRUE(testing::contains(labels[induction], "induct"))
        << induction << ": " << labels[induction];
    // The strongest K-composition's reader is one of the induction heads.
    const std::string top = m.at("attnscope").at("circuits").at("k_top").get<std::string>();
    const std::string reader = top.substr(top.find("->") + 2);
    EXPECT_TRUE(testing::contains(labels[reader], "induct")) << reader << ": " << labels[reader];
}

TEST(CircuitsModel, TrainingSeriesIsReadInStepOrder) {
    const auto m = metrics();
    std::vector<int> steps;
    for (const auto& r : m.at("series")) {
        steps.push_back(r.at("step").get<int>());
    }
    ASSERT_GE(steps.size(), 3U);
    EXPECT_TRUE(std::is_sorted(steps.begin(), steps.end()));
    // The bump the card shows: the induction head's score from its first to its last checkpoint.
    EXPECT_LT(m.at("series").front().at("induction_head_score").get<double>(), 0.1);
    EXPECT_GE(m.at("series").back().at("induction_head_score").get<double>(), 0.4);

    const auto run = testing::runCli(
        "series " + testing::shellQuoted(kModel / "series") + " --sentences " +
        testing::shellQuoted(kModel / "doubled_sentences.txt") + " --max-sentences 20");
    ASSERT_EQ(run.exitCode, 0) << run.err;
    for (const int step : steps) {
        EXPECT_TRUE(testing::contains(run.out, "step" + std::to_string(step))) << run.out;
    }
}

// The induction bump (issue 34): `series`'s induction probe, run as the card's survey runs S7
// (10 sequences of N = 25, seed 0, drawn once for the whole series), is the card's "AttnScope
// probe" of every head at every step, and the induction head's rises from chance to the 0.4
// detector threshold and beyond.
TEST(CircuitsModel, TrainingSeriesShowsTheInductionBumpAsTheCardSays) {
    const auto m = metrics();
    const std::string induction = headName(m.at("circuit").at("induction_head"));
    std::map<std::string, double> claimed;  // "step layer-head" -> the survey's probe
    for (const auto& r : m.at("attnscope").at("survey_series")) {
        for (const auto& h : r.at("heads")) {
            claimed[std::to_string(r.at("step").get<int>()) + " " +
                    std::to_string(h.at("layer").get<int>()) + "-" +
                    std::to_string(h.at("head").get<int>())] =
                h.at("probe_induction").get<double>();
        }
    }
    ASSERT_EQ(claimed.size(), 5u * 8u);

    testing::ScratchDir tmp;
    const fs::path csv = tmp.path() / "series.csv";
    const auto run = testing::runCli(
        "series " + testing::shellQuoted(kModel / "series") + " --token-ids 2,10,20" +
        " --probe-repeats 10 --probe-length 25 --probe-seed 0 --out " + testing::shellQuoted(csv));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    std::map<std::string, double> probe;
    for (const auto& r : csvRecords(csv)) {
        probe[r.at("step") + " " + r.at("layer") + "-" + r.at("head")] =
            std::stod(r.at("induction_probe"));
    }
    ASSERT_EQ(probe.size(), claimed.size());
    for (const auto& [key, value] : claimed) {
        EXPECT_NEAR(probe[key], value, 1e-4) << key;  // metrics.json keeps 4 decimals
    }
    const int first = m.at("series").front().at("step").get<int>();
    const int last = m.at("series").back().at("step").get<int>();
    const double before = probe[std::to_string(first) + " " + induction];
    const double after = probe[std::to_string(last) + " " + induction];
    EXPECT_LT(before, 0.1) << induction << " at step " << first;
    EXPECT_GE(after, 0.4) << induction << " at step " << last;
}

}  // namespace
}  // namespace attnscope
