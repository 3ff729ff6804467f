// Automatic head labels (issue 18): rules L1–L10 of head_labels.h on hand-built surveys, each
// threshold hit exactly, just above and just below; NaN never labels; order by strength;
// syntactic labels from given dependency results; filtering; bad input.
#include "attnscope/analysis/head_labels.h"

#include <limits>

#include <gtest/gtest.h>

#include "attnscope/base/error.h"

namespace attnscope {
namespace {

using analysis::DependencyLabels;
using analysis::HeadLabel;
using analysis::HeadSurvey;
using analysis::LabelRules;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kEps = 1e-9;

// Every score NaN for nLayers x nHeads heads: no rule can hold until a test sets one.
HeadSurvey blankSurvey(int nLayers, int nHeads) {
    HeadSurvey s;
    s.nLayers = nLayers;
    s.nHeads = nHeads;
    for (const auto& name : analysis::surveyScoreNames()) {
        s.scores[name].assign(static_cast<std::size_t>(nLayers * nHeads), kNaN);
    }
    return s;
}

std::vector<std::string> tags(const std::vector<HeadLabel>& labels) {
    std::vector<std::string> out;
    for (const auto& l : labels) {
        out.push_back(l.tag);
    }
    return out;
}

using Tags = std::vector<std::string>;

struct SimpleCase {
    std::string score;
    std::string tag;
    double threshold;
};

// L1–L3, L6, L7, L9: at, just above and just below the default threshold; the rest NaN.
TEST(HeadLabels, SimpleRulesFireAtTheirThresholdAndNotBelow) {
    const std::vector<SimpleCase> cases = {
        {"prev", "prev", 0.5},          {"next", "next", 0.5},   {"self", "self", 0.5},
        {"entropy_norm", "broad", 0.8}, {"punct", "punct", 0.6}, {"tl_dup_mul_nobos", "dup", 0.4},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.score);
        HeadSurvey s = blankSurvey(1, 3);
        s.scores[c.score] = {c.threshold, c.threshold + kEps, c.threshold - kEps};
        const auto labels = analysis::labelHeads(s);
        ASSERT_EQ(labels.size(), 3u);
        EXPECT_EQ(tags(labels[0]), Tags{c.tag});
        EXPECT_EQ(tags(labels[1]), Tags{c.tag});
        EXPECT_TRUE(labels[2].empty());
        EXPECT_DOUBLE_EQ(labels[1][0].strength, c.threshold + kEps);
    }
}

TEST(HeadLabels, EvidenceAndRuleStateTheNumbers) {
    HeadSurvey s = blankSurvey(1, 1);
    s.scores["prev"] = {0.93};
    const auto labels = analysis::labelHeads(s);
    ASSERT_EQ(labels[0].size(), 1u);
    const HeadLabel& l = labels[0][0];
    EXPECT_EQ(l.name, "previous token");
    EXPECT_EQ(l.evidence, "prev = 0.930 ≥ 0.5");
    EXPECT_NE(l.rule.find("L1"), std::string::npos);
    EXPECT_NE(l.rule.find("prev ≥ 0.5"), std::string::npos);
}

TEST(HeadLabels, ThresholdsComeFromTheRules) {
    HeadSurvey s = blankSurvey(1, 2);
    s.scores["prev"] = {0.35, 0.25};
    LabelRules rules;
    rules.previous = 0.3;
    const auto labels = analysis::labelHeads(s, rules);
    EXPECT_EQ(tags(labels[0]), Tags{"prev"});
    EXPECT_EQ(labels[0][0].evidence, "prev = 0.350 ≥ 0.3");
    EXPECT_TRUE(labels[1].empty());
}

// L4: Voita's frequency at the head's own offset, signed in the tag.
TEST(HeadLabels, PositionalCarriesItsOffset) {
    HeadSurvey s = blankSurvey(1, 4);
    s.scores["positional_frequency"] = {0.9, 0.9 + kEps, 0.9 - kEps, kNaN};
    s.scores["positional_offset"] = {2, -1, 1, 0};
    const auto labels = analysis::labelHeads(s);
    EXPECT_EQ(tags(labels[0]), Tags{"pos+2"});
    EXPECT_EQ(labels[0][0].name, "positional +2");
    EXPECT_EQ(labels[0][0].evidence, "positional_frequency = 0.900 ≥ 0.9 at offset +2");
    EXPECT_EQ(tags(labels[1]), Tags{"pos-1"});
    EXPECT_TRUE(labels[2].empty());
    EXPECT_TRUE(labels[3].empty());  // no counted rows: frequency NaN, offset 0
}

// L5 needs both the sink rate and the first-token mass.
TEST(HeadLabels, SinkNeedsRateAndMass) {
    HeadSurvey s = blankSurvey(1, 5);
    s.scores["sink_rate"] = {0.5, 0.5 + kEps, 0.5 - kEps, 1.0, 1.0};
    s.scores["first_mass"] = {0.3, 0.7, 0.9, 0.3 - kEps, kNaN};
    const auto labels = analysis::labelHeads(s);
    EXPECT_EQ(tags(labels[0]), Tags{"sink"});
    EXPECT_EQ(tags(labels[1]), Tags{"sink"});
    EXPECT_DOUBLE_EQ(labels[1][0].strength, 0.7);
    EXPECT_EQ(labels[1][0].evidence, "sink_rate = 0.500 ≥ 0.5, first_mass = 0.700 ≥ 0.3");
    EXPECT_TRUE(labels[2].empty());
    EXPECT_TRUE(labels[3].empty());
    EXPECT_TRUE(labels[4].empty());
}

// L8: the detector alone where the probe did not run; both where it did.
TEST(HeadLabels, InductionUsesTheProbeWhereItRan) {
    HeadSurvey s = blankSurvey(2, 3);
    s.scores["tl_induction_mul_nobos"] = {0.4, 0.4 - kEps, 0.6, 0.6, 0.6, 0.1};
    s.scores["probe_induction"] = {kNaN, kNaN, 0.4 + kEps, 0.4 - kEps, 0.9, 0.95};
    const auto labels = analysis::labelHeads(s);
    EXPECT_EQ(tags(labels[0]), Tags{"induct"});
    EXPECT_DOUBLE_EQ(labels[0][0].strength, 0.4);
    EXPECT_NE(labels[0][0].evidence.find("probe not run"), std::string::npos);
    EXPECT_TRUE(labels[1].empty());
    EXPECT_EQ(tags(labels[2]), Tags{"induct"});
    EXPECT_TRUE(labels[3].empty());
    EXPECT_EQ(tags(labels[4]), Tags{"induct"});
    EXPECT_DOUBLE_EQ(labels[4][0].strength, 0.9);
    EXPECT_EQ(labels[4][0].evidence,
              "tl_induction_mul_nobos = 0.600 ≥ 0.4, probe_induction = 0.900 ≥ 0.4");
    EXPECT_TRUE(labels[5].empty());  // the probe alone is not enough
}

TEST(HeadLabels, NaNScoresNeverLabel) {
    const HeadSurvey s = blankSurvey(2, 2);
    DependencyLabels deps{2, 2, {{"det", 0.5, -1, {kNaN, kNaN, kNaN, kNaN}}}};
    for (const auto& head : analysis::labelHeads(s, {}, &deps)) {
        EXPECT_TRUE(head.empty());
    }
    // A NaN baseline cannot be beaten either.
    deps.relations[0] = {"det", kNaN, -1, {1.0, 1.0, 1.0, 1.0}};
    for (const auto& head : analysis::labelHeads(s, {}, &deps)) {
        EXPECT_TRUE(head.empty());
    }
}

TEST(HeadLabels, SeveralLabelsStrongestFirstTiesInRuleOrder) {
    HeadSurvey s = blankSurvey(1, 2);
    s.scores["prev"] = {0.6, 0.7};
    s.scores["positional_frequency"] = {0.95, 0.95};
    s.scores["positional_offset"] = {-1, -1};
    s.scores["sink_rate"] = {0.8, 0.9};
    s.scores["first_mass"] = {0.75, 0.7};
    s.scores["entropy_norm"] = {0.2, 0.2};
    const auto labels = analysis::labelHeads(s);
    EXPECT_EQ(tags(labels[0]), (Tags{"pos-1", "sink", "prev"}));
    // Equal strengths (0.7): L1 before L5.
    EXPECT_EQ(tags(labels[1]), (Tags{"pos-1", "prev", "sink"}));
}

// L10: the relation that beats its baseline by the most, not the most accurate one.
TEST(HeadLabels, SyntacticFromDependencyResults) {
    const HeadSurvey s = blankSurvey(1, 4);
    DependencyLabels deps;
    deps.nLayers = 1;
    deps.nHeads = 4;
    deps.relations = {
        {"amod", 0.7, -1, {0.95, 0.7 + 0.1 + kEps, 0.7 + 0.1 - kEps, kNaN}},
        {"det", 0.4, 1, {0.7, 0.2, 0.1, kNaN}},
    };
    const auto labels = analysis::labelHeads(s, {}, &deps);
    EXPECT_EQ(tags(labels[0]), Tags{"syn:det"});  // margin 0.30 beats amod's 0.25
    EXPECT_EQ(labels[0][0].name, "syntactic: det");
    EXPECT_DOUBLE_EQ(labels[0][0].strength, 0.7);
    EXPECT_EQ(labels[0][0].evidence, "det accuracy = 0.700 ≥ baseline 0.400 (offset 1) + 0.1");
    EXPECT_EQ(tags(labels[1]), Tags{"syn:amod"});
    EXPECT_TRUE(labels[2].empty());
    EXPECT_TRUE(labels[3].empty());
    // Without dependency results there is no syntactic label.
    for (const auto& head : analysis::labelHeads(s)) {
        EXPECT_TRUE(head.empty());
    }
}

TEST(HeadLabels, FilterByTagOrFamily) {
    HeadSurvey s = blankSurvey(2, 2);
    s.scores["positional_frequency"] = {0.95, kNaN, 0.92, kNaN};
    s.scores["positional_offset"] = {-1, 0, 2, 0};
    s.scores["tl_dup_mul_nobos"] = {kNaN, 0.5, kNaN, kNaN};
    DependencyLabels deps{2, 2, {{"det", 0.1, -1, {kNaN, kNaN, kNaN, 0.9}}}};
    const auto labels = analysis::labelHeads(s, {}, &deps);
    using H = std::vector<HeadId>;
    EXPECT_EQ(analysis::headsWithLabel(labels, "pos", 2), (H{{0, 0}, {1, 0}}));
    EXPECT_EQ(analysis::headsWithLabel(labels, "pos+2", 2), (H{{1, 0}}));
    EXPECT_EQ(analysis::headsWithLabel(labels, "dup", 2), (H{{0, 1}}));
    EXPECT_EQ(analysis::headsWithLabel(labels, "syn", 2), (H{{1, 1}}));
    EXPECT_EQ(analysis::headsWithLabel(labels, "syn:det", 2), (H{{1, 1}}));
    EXPECT_TRUE(analysis::headsWithLabel(labels, "po", 2).empty());
    EXPECT_TRUE(analysis::headsWithLabel(labels, "induct", 2).empty());
    EXPECT_TRUE(analysis::headsWithLabel(labels, "", 2).empty());
    EXPECT_THROW(analysis::headsWithLabel(labels, "pos", 0), InvalidArgument);
}

TEST(HeadLabels, BadInputIsRejected) {
    HeadSurvey s = blankSurvey(1, 2);
    s.scores.erase("sink_rate");
    EXPECT_THROW(analysis::labelHeads(s), InvalidArgument);
    s = blankSurvey(1, 2);
    s.scores["prev"] = {0.9};
    try {
        analysis::labelHeads(s);
        FAIL() << "no error for a short score";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("'prev' has 1 values for 2 heads"), std::string::npos);
    }
    s = blankSurvey(1, 2);
    DependencyLabels deps{2, 1, {}};
    EXPECT_THROW(analysis::labelHeads(s, {}, &deps), InvalidArgument);
    deps = {1, 2, {{"det", 0.1, 1, {0.5}}}};
    EXPECT_THROW(analysis::labelHeads(s, {}, &deps), InvalidArgument);
}

}  // namespace
}  // namespace attnscope
