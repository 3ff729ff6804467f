// The corpus survey of heads (issue 18) on hand-made maps whose answers survey_selftest.py works
// out by hand (the same cases, the same answers, rules S1-S12 of survey_reference.py), then the
// survey of fixture checkpoints: shares, recomputed maps, the probe, cancel and bad input.
#include "attnscope/analysis/head_survey.h"

#include <atomic>
#include <cmath>
#include <filesystem>
#include <limits>
#include <numbers>
#include <thread>

#include <gtest/gtest.h>

#include "../support/executors.h"
#include "../support/fixture_model.h"
#include "attnscope/base/error.h"
#include "attnscope/base/splitmix64.h"
#include "attnscope/forward/forward_pass.h"

namespace attnscope {
namespace {

using testing::fixtureModel;

using analysis::HeadSurvey;
using analysis::SurveyOptions;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kTol = 1e-12;

using Map = std::vector<float>;

// Row i one-hot on keys[i]; -1 leaves the row all zero.
Map oneHot(int n, const std::vector<int>& keys) {
    Map a(static_cast<std::size_t>(n * n), 0.0f);
    for (int i = 0; i < n; ++i) {
        if (keys[static_cast<std::size_t>(i)] >= 0) {
            a[static_cast<std::size_t>(i * n + keys[static_cast<std::size_t>(i)])] = 1.0f;
        }
    }
    return a;
}

BoolMatrix causal(int n) {
    BoolMatrix m = BoolMatrix::Zero(n, n);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j <= i; ++j) {
            m(i, j) = 1;
        }
    }
    return m;
}

BoolMatrix full(int n) {
    return BoolMatrix::Ones(n, n);
}

struct Sentence {
    std::vector<Map> heads;
    std::vector<std::int32_t> ids;
    BoolMatrix allowed;
};

HeadSurvey survey(const std::vector<Sentence>& corpus, const SurveyOptions& options = {}) {
    const int k = static_cast<int>(corpus.front().heads.size());
    analysis::SurveyAccumulator acc(1, k, options);
    for (const Sentence& s : corpus) {
        std::vector<const float*> maps;
        for (const Map& m : s.heads) {
            maps.push_back(m.data());
        }
        acc.add(
            analysis::surveyMaps(maps, static_cast<int>(s.ids.size()), s.ids, s.allowed, options));
    }
    return acc.finish();
}

HeadSurvey one(const Map& a, const std::vector<std::int32_t>& ids, const BoolMatrix& allowed,
               const SurveyOptions& options = {}) {
    return survey({{{a}, ids, allowed}}, options);
}

void expectNear(const HeadSurvey& s, const std::string& name, double want, int head = 0) {
    const double got = s.score(name)[static_cast<std::size_t>(head)];
    if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << name << " = " << got << ", want NaN";
    } else {
        EXPECT_NEAR(got, want, kTol) << name;
    }
}

void expectAll(const HeadSurvey& s, const std::vector<std::pair<std::string, double>>& wants) {
    for (const auto& [name, want] : wants) {
        expectNear(s, name, want);
    }
}

TEST(HeadSurveyGolden, ScoreNamesAreTheReferences) {
    const auto& names = analysis::surveyScoreNames();
    ASSERT_EQ(names.size(), 37u);
    EXPECT_EQ(names[10], "tl_prev_mul");
    EXPECT_EQ(names[13], "tl_prev_abs_nobos");
    EXPECT_EQ(names[27], "tl_induction_abs_tl_nobos");
    EXPECT_EQ(names[29], "sink_rate");
    EXPECT_EQ(names.back(), "rare_top2");
    const HeadSurvey s = one(oneHot(2, {0, 0}), {1, 2}, causal(2));
    for (const auto& n : names) {
        EXPECT_EQ(s.score(n).size(), 1u) << n;
    }
}

TEST(HeadSurveyGolden, PreviousTokenHead) {
    const HeadSurvey s = one(oneHot(5, {0, 0, 1, 2, 3}), {10, 11, 12, 13, 14}, causal(5));
    expectAll(s, {{"prev", 0.8},
                  {"self", 0.2},
                  {"first", 0.4},
                  {"last", 0.0},
                  {"next", 0.0},
                  {"entropy", 0.0},
                  {"entropy_norm", 0.0},
                  {"tl_prev_mul", 0.8},
                  {"tl_prev_mul_nobos", 1.0},
                  {"tl_prev_abs", 0.8},
                  // TL zeroes the difference in column 0, where rows 0 and 1 put all their
                  // weight (issue 30): nothing is left to charge, not row 1's |0 - D[1][0]| = 1.
                  {"tl_prev_abs_nobos", 1.0},
                  {"tl_prev_abs_tl", 0.8},
                  {"tl_prev_abs_tl_nobos", 1.0},
                  {"tl_dup_mul", 0.0},
                  {"tl_dup_abs", 0.0},
                  {"first_mass", 0.25},
                  {"sink_rate", 1.0},
                  {"positional_offset", -1},
                  {"positional_frequency", 0.8},
                  {"positional", 0.0},
                  {"confidence", 1.0}});
    SurveyOptions at08;
    at08.positionalThreshold = 0.8;
    expectNear(one(oneHot(5, {0, 0, 1, 2, 3}), {10, 11, 12, 13, 14}, causal(5), at08), "positional",
               1.0);
}

TEST(HeadSurveyGolden, InductionAndDuplicateHeads) {
    const std::vector<std::int32_t> ids = {1, 5, 6, 7, 5, 6, 7};
    const HeadSurvey ind = one(oneHot(7, {0, 0, 0, 0, 2, 3, 4}), ids, causal(7));
    expectAll(ind, {{"tl_induction_mul", 3.0 / 7},
                    {"tl_induction_mul_nobos", 1.0},
                    {"tl_induction_abs", 3.0 / 7},
                    {"tl_induction_abs_tl", 1 - 0.571},  // TL rounds 4/7 to 0.571
                    {"tl_induction_abs_nobos", 1.0},
                    {"tl_dup_mul", 0.0},
                    {"tl_dup_mul_nobos", 0.0}});
    const HeadSurvey dup = one(oneHot(7, {0, 0, 0, 0, 1, 2, 3}), ids, causal(7));
    expectAll(dup, {{"tl_dup_mul", 3.0 / 7},
                    {"tl_dup_mul_nobos", 1.0},
                    {"tl_dup_abs", 3.0 / 7},
                    {"tl_dup_abs_nobos", 1.0},
                    {"tl_induction_mul", 0.0},
                    {"tl_prev_mul_nobos", 0.0}});
    // The induction template keeps j = i when id_i == id_{i-1}: ids [1 4 4], a head on the
    // diagonal of row 2 only (rows 0, 1 on BOS) has all its non-BOS mass on the template.
    expectNear(one(oneHot(3, {0, 0, 2}), {1, 4, 4}, causal(3)), "tl_induction_mul_nobos", 1.0);
}

TEST(HeadSurveyGolden, UniformHeads) {
    const HeadSurvey bi = one(Map(16, 0.25f), {20, 21, 22, 23}, full(4));
    expectAll(bi, {{"entropy", std::log(4.0)},
                   {"entropy_norm", 1.0},
                   {"prev", 3.0 / 16},
                   {"next", 3.0 / 16},
                   {"self", 0.25},
                   {"first", 0.25},
                   {"last", 0.25},
                   {"tl_prev_mul", 3.0 / 16},
                   {"tl_prev_abs", -0.375},
                   {"positional_offset", 0},
                   {"positional_frequency", 0.25},
                   {"confidence", 0.25},
                   {"sink_rate", 0.0},
                   {"first_mass", 0.25}});
    Map a(16, 0.0f);
    for (int i = 0; i < 4; ++i) {
        for (int j = 0; j <= i; ++j) {
            a[static_cast<std::size_t>(i * 4 + j)] = 1.0f / static_cast<float>(i + 1);
        }
    }
    // float32 weights: 1/3 is not exact, so this case is checked at float precision.
    const HeadSurvey c = one(a, {20, 21, 22, 23}, causal(4));
    EXPECT_NEAR(c.score("entropy")[0], (std::log(2.0) + std::log(3.0) + std::log(4.0)) / 4, 1e-7);
    EXPECT_NEAR(c.score("entropy_norm")[0], 1.0, 1e-7);
    EXPECT_NEAR(c.score("first_mass")[0], 13.0 / 36, 1e-7);
    expectAll(c, {{"sink_rate", 1.0}, {"next", 0.0}, {"positional_offset", 0}});
}

TEST(HeadSurveyGolden, FirstTokenSinkAndUndefinedMul) {
    const HeadSurvey s = one(oneHot(5, {0, 0, 0, 0, 0}), {3, 4, 5, 6, 7}, causal(5));
    expectAll(s, {{"first_mass", 1.0},
                  {"sink_rate", 1.0},
                  {"entropy", 0.0},
                  {"tl_prev_mul", 0.2},
                  {"tl_prev_mul_nobos", kNaN},  // all mass removed: 0/0 in every sentence
                  {"tl_prev_abs", -0.4},
                  {"positional_offset", 0}});
    SurveyOptions strict;
    strict.sinkEps = 1.0;  // alpha = 1 is not > 1
    expectNear(one(oneHot(5, {0, 0, 0, 0, 0}), {3, 4, 5, 6, 7}, causal(5), strict), "sink_rate",
               0.0);
}

TEST(HeadSurveyGolden, InvalidRowsAreLeftOut) {
    BoolMatrix allowed = full(4);
    allowed.row(2).setZero();
    const Map a = oneHot(4, {0, 0, -1, 2});
    const HeadSurvey s = one(a, {1, 2, 3, 4}, allowed);
    expectAll(s, {{"prev", 2.0 / 3},
                  {"self", 1.0 / 3},
                  {"first", 2.0 / 3},
                  {"entropy", 0.0},
                  {"positional_offset", -1},
                  {"positional_frequency", 2.0 / 3}});
    Map b = a;
    b[2 * 4 + 3] = 1.0f;  // weight, but no allowed key: still left out
    const HeadSurvey s2 = one(b, {1, 2, 3, 4}, allowed);
    for (const char* name : {"prev", "self", "first", "positional_frequency"}) {
        EXPECT_EQ(s2.score(name)[0], s.score(name)[0]) << name;
    }
    // Row 2 is valid in the second head only: left out of their distance, which is then 0.
    const HeadSurvey pair = survey({{{a, oneHot(4, {0, 0, 1, 2})}, {1, 2, 3, 4}, full(4)}});
    EXPECT_EQ(pair.distance[1], 0.0);
    // An all-invalid sentence does not pull S3 means towards 0.
    const HeadSurvey two =
        survey({{{oneHot(2, {0, 1})}, {1, 2}, full(2)}, {{Map(4, 0.0f)}, {1, 2}, full(2)}});
    expectNear(two, "self", 1.0);
}

TEST(HeadSurveyGolden, PunctuationPeriodSpecial) {
    SurveyOptions o;
    o.specialIds = {101, 102};
    o.punctIds = {5, 9};
    o.periodIds = {7};
    const Map a = oneHot(5, {1, 2, 3, 4, 0});
    const std::vector<std::int32_t> ids = {101, 5, 7, 9, 102};
    expectAll(one(a, ids, full(5), o),
              {{"punct", 0.4}, {"period", 0.2}, {"special", 0.4}, {"next", 0.8}});
    expectNear(one(a, ids, full(5)), "punct", kNaN);  // no punctuation ids given
}

TEST(HeadSurveyGolden, RareWordHead) {
    const std::vector<Sentence> corpus = {{{oneHot(4, {1, 3, 3, 3})}, {101, 5, 5, 8}, full(4)},
                                          {{oneHot(4, {3, 1, 1, 1})}, {101, 5, 9, 9}, full(4)}};
    for (const auto& [k, want] : std::vector<std::pair<int, double>>{{0, 0.5}, {1, 0.5}, {2, 1}}) {
        SurveyOptions o;
        o.specialIds = {101};
        o.rareTop = k;
        const HeadSurvey s = survey(corpus, o);
        EXPECT_NEAR(s.score("rare_top1")[0], want, kTol) << "K = " << k;
        EXPECT_NEAR(s.score("rare_top2")[0], want, kTol) << "K = " << k;
    }
    // The corpus has 4 distinct ids (101, 5, 8, 9): from rare-top 4 on every id is among the most
    // frequent, no sentence is eligible, and the survey says so rather than leaving a bare NaN.
    for (const int k : {4, 500}) {
        SurveyOptions o;
        o.specialIds = {101};
        o.rareTop = k;
        const HeadSurvey s = survey(corpus, o);
        EXPECT_TRUE(std::isnan(s.score("rare_top1")[0])) << "K = " << k;
        EXPECT_EQ(s.rareSentences, 0u);
        EXPECT_NE(s.rareError.find("the corpus has 4 distinct ids, not more than rare-top " +
                                   std::to_string(k)),
                  std::string::npos)
            << s.rareError;
    }
    SurveyOptions two;
    two.specialIds = {101};
    two.rareTop = 2;
    const HeadSurvey some = survey(corpus, two);
    EXPECT_EQ(some.rareSentences, 1u);  // s2's rarest id 9 is a top-2 id
    EXPECT_TRUE(some.rareError.empty()) << some.rareError;
    SurveyOptions allSpecial;
    allSpecial.specialIds = {101, 5, 9};
    EXPECT_EQ(survey(corpus, allSpecial).rareError,
              "no sentence has two tokens that are not special");
    const std::vector<std::int32_t> ids = {101, 8, 9, 9, 5, 5, 5};
    for (const auto& [key, top1, top2] :
         std::vector<std::tuple<int, double, double>>{{2, 0, 1}, {4, 0, 0}, {1, 1, 1}}) {
        SurveyOptions o;
        o.specialIds = {101};
        o.rareTop = 0;
        const HeadSurvey s = one(oneHot(7, std::vector<int>(7, key)), ids, full(7), o);
        EXPECT_NEAR(s.score("rare_top1")[0], top1, kTol) << "key " << key;
        EXPECT_NEAR(s.score("rare_top2")[0], top2, kTol) << "key " << key;
    }
}

TEST(HeadSurveyGolden, JensenShannonDistances) {
    Map eye(9, 0.0f), shift(9, 0.0f);
    for (int i = 0; i < 3; ++i) {
        eye[static_cast<std::size_t>(i * 3 + i)] = 1.0f;
        shift[static_cast<std::size_t>(i * 3 + (i + 1) % 3)] = 1.0f;
    }
    const Map third(9, 1.0f / 3.0f);
    const HeadSurvey s = survey({{{eye, shift, third}, {1, 2, 3}, full(3)}});
    // methods.md §1.6's goldens of Clark's head_distances.py: rows smoothed as 0.001/n + 0.999 A,
    // the JS summed over the 3 rows (issue 30; unsmoothed row means gave ln 2 and 0.458).
    EXPECT_NEAR(s.distance[1], 2.069743, 1e-6);
    EXPECT_NEAR(s.distance[2], 0.947151, 1e-6);
    for (int x = 0; x < 3; ++x) {
        EXPECT_EQ(s.distance[static_cast<std::size_t>(x * 4)], 0.0);
        for (int y = 0; y < 3; ++y) {
            EXPECT_EQ(s.distance[static_cast<std::size_t>(x * 3 + y)],
                      s.distance[static_cast<std::size_t>(y * 3 + x)]);
        }
    }
}

// Over a corpus, S11 adds the sentences' row sums and divides by the sentences surveyed: the
// same two heads twice, then a one-token sentence where they agree, give 2 x 2.069743 / 3.
TEST(HeadSurveyGolden, DistanceIsTheSentencesRowSumsOverTheSentences) {
    Map eye(9, 0.0f), shift(9, 0.0f);
    for (int i = 0; i < 3; ++i) {
        eye[static_cast<std::size_t>(i * 3 + i)] = 1.0f;
        shift[static_cast<std::size_t>(i * 3 + (i + 1) % 3)] = 1.0f;
    }
    const Sentence three{{eye, shift}, {1, 2, 3}, full(3)};
    const HeadSurvey s = survey({three, three, {{Map{1.0f}, Map{1.0f}}, {1}, full(1)}});
    EXPECT_NEAR(s.distance[1], 2 * 2.069743 / 3, 1e-6);
    EXPECT_EQ(s.distance[0], 0.0);
}

TEST(HeadSurveyGolden, ClassicalMds) {
    const double pts[3][2] = {{0, 0}, {3, 0}, {0, 4}};
    std::vector<double> d(9);
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            d[static_cast<std::size_t>(i * 3 + j)] =
                std::hypot(pts[i][0] - pts[j][0], pts[i][1] - pts[j][1]);
        }
    }
    std::vector<double> coords, lam;
    analysis::classicalMds(d, 3, 2, coords, lam);
    EXPECT_NEAR(lam[0], (50 + std::sqrt(772.0)) / 6, 1e-9);
    EXPECT_NEAR(lam[1], (50 - std::sqrt(772.0)) / 6, 1e-9);
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            const double back = std::hypot(
                coords[static_cast<std::size_t>(i * 2)] - coords[static_cast<std::size_t>(j * 2)],
                coords[static_cast<std::size_t>(i * 2 + 1)] -
                    coords[static_cast<std::size_t>(j * 2 + 1)]);
            EXPECT_NEAR(back, d[static_cast<std::size_t>(i * 3 + j)], 1e-9);
        }
    }
    for (int c = 0; c < 2; ++c) {  // S12 sign rule: each column's largest |entry| is positive
        double top = 0;
        for (int i = 0; i < 3; ++i) {
            const double v = coords[static_cast<std::size_t>(i * 2 + c)];
            top = std::abs(v) > std::abs(top) ? v : top;
        }
        EXPECT_GT(top, 0) << "column " << c;
    }
    EXPECT_THROW(analysis::classicalMds({0, kNaN, kNaN, 0}, 2, 2, coords, lam), InvalidArgument);
}

TEST(HeadSurveyGolden, UndefinedDistanceLeavesMdsEmptyWithReason) {
    // Head 0 has no valid row at all: its distances are undefined.
    const HeadSurvey s = survey({{{Map(4, 0.0f), oneHot(2, {0, 1})}, {1, 2}, full(2)}});
    EXPECT_TRUE(std::isnan(s.distance[1]));
    EXPECT_TRUE(s.mds.empty());
    EXPECT_NE(s.mdsError.find("undefined"), std::string::npos);
}

TEST(HeadSurveyGolden, EmptyAccumulatorGivesNaNOfTheRightShape) {
    const HeadSurvey s = analysis::SurveyAccumulator(2, 3, {}).finish();
    for (const auto& name : analysis::surveyScoreNames()) {
        ASSERT_EQ(s.score(name).size(), 6u) << name;
        if (name != "positional_offset") {
            EXPECT_TRUE(std::isnan(s.score(name)[0])) << name;
        }
    }
    EXPECT_TRUE(s.mds.empty());  // no distance is defined
    EXPECT_THROW(s.score("no such score"), InvalidArgument);
}

TEST(HeadSurveyGolden, ProbeSequence) {
    EXPECT_EQ(SplitMix64(0).next(), 0xE220A8397B1DCDAFULL);
    const auto seq = analysis::probeTokens(50, {0, 1}, 7, 2, 6, 1);
    ASSERT_EQ(seq.size(), 13u);
    EXPECT_EQ(seq[0], 1);
    for (int i = 1; i <= 6; ++i) {
        EXPECT_EQ(seq[static_cast<std::size_t>(i)], seq[static_cast<std::size_t>(i + 6)]);
        EXPECT_GE(seq[static_cast<std::size_t>(i)], 2);
    }
    SplitMix64 rng(9);  // seed 7 + repeat 2
    EXPECT_EQ(seq[1], static_cast<std::int32_t>(2 + rng.next() % 48));
    EXPECT_THROW(analysis::probeTokens(2, {0, 1}, 0, 0, 4, 0), InvalidArgument);
}

constexpr auto inline_ = testing::runInline;
constexpr auto threads = testing::runOnThreads;

const std::vector<std::vector<std::int32_t>> kCorpus = {{5, 40, 41, 42, 40, 41, 42, 7},
                                                        {5, 60, 61, 60, 61, 9},
                                                        {},
                                                        {5, 30, 31, 32, 33, 30, 31},
                                                        {5, 8}};

SurveyOptions modelOptions() {
    SurveyOptions o;
    o.specialIds = {5};
    o.punctIds = {7, 9};
    o.periodIds = {9};
    o.rareTop = 2;
    o.probeRepeats = 2;
    o.probeLength = 4;
    return o;
}

void expectSame(const HeadSurvey& a, const HeadSurvey& b) {
    for (const auto& name : analysis::surveyScoreNames()) {
        const auto& x = a.score(name);
        const auto& y = b.score(name);
        for (std::size_t h = 0; h < x.size(); ++h) {
            EXPECT_TRUE(x[h] == y[h] || (std::isnan(x[h]) && std::isnan(y[h])))
                << name << "[" << h << "]: " << x[h] << " vs " << y[h];
        }
    }
    EXPECT_EQ(a.distance, b.distance);
    EXPECT_EQ(a.mds, b.mds);
}

TEST(HeadSurveyModel, SharesDoNotChangeAnyBit) {
    for (const char* name : {"gpt2_f32", "bert_f32"}) {
        const auto m = fixtureModel(name);
        const HeadSurvey one = analysis::surveyCorpus(*m, kCorpus, modelOptions(), inline_);
        SurveyOptions three = modelOptions();
        three.shares = 3;
        const HeadSurvey many = analysis::surveyCorpus(*m, kCorpus, three, threads);
        SCOPED_TRACE(name);
        expectSame(one, many);
        EXPECT_EQ(one.sentences, 4u);
        EXPECT_EQ(one.skipped, 1u);
        ASSERT_EQ(one.mds.size(),
                  one.distance.size() / static_cast<std::size_t>(one.nLayers * one.nHeads) * 2);
    }
}

TEST(HeadSurveyModel, MergedAccumulatorsEqualOnePass) {
    const auto m = fixtureModel("llama_f32");
    const SurveyOptions o = modelOptions();
    analysis::SurveyAccumulator all(m->spec.nLayers, m->spec.nHeads, o);
    analysis::SurveyAccumulator first(m->spec.nLayers, m->spec.nHeads, o);
    analysis::SurveyAccumulator second(m->spec.nLayers, m->spec.nHeads, o);
    for (std::size_t i = 0; i < kCorpus.size(); ++i) {
        if (kCorpus[i].empty()) {
            continue;
        }
        const auto s = analysis::surveySentence(*m, forward::runForward(*m, {kCorpus[i], {}}), o);
        all.add(s);
        (i < 2 ? first : second).add(s);
    }
    first.merge(second);
    const HeadSurvey a = all.finish();
    const HeadSurvey b = first.finish();
    EXPECT_EQ(b.sentences, a.sentences);
    for (const auto& name : analysis::surveyScoreNames()) {
        for (std::size_t h = 0; h < a.score(name).size(); ++h) {
            const double x = a.score(name)[h];
            const double y = b.score(name)[h];
            EXPECT_TRUE(std::abs(x - y) <= 1e-15 || (std::isnan(x) && std::isnan(y)))
                << name << "[" << h << "]";
        }
    }
    analysis::SurveyAccumulator other(1, 1, o);
    EXPECT_THROW(first.merge(other), InvalidArgument);
}

TEST(HeadSurveyModel, ProgressReachesOne) {
    std::atomic<int> calls{0};
    std::atomic<double> last{0.0};
    SurveyOptions o = modelOptions();
    o.progress = [&](double f) {
        ++calls;
        double prev = last.load();
        while (f > prev && !last.compare_exchange_weak(prev, f)) {
        }
    };
    analysis::surveyCorpus(*fixtureModel("gpt2_f32"), kCorpus, o, inline_);
    EXPECT_EQ(calls.load(), 7);  // 5 sentences (one empty) and 2 probe repeats
    EXPECT_DOUBLE_EQ(last.load(), 1.0);
}

TEST(HeadSurveyModel, ProbeOnlyForCausalModels) {
    const HeadSurvey bert =
        analysis::surveyCorpus(*fixtureModel("bert_f32"), kCorpus, modelOptions(), inline_);
    for (double v : bert.score("probe_induction")) {
        EXPECT_TRUE(std::isnan(v));
    }
    const HeadSurvey gpt2 =
        analysis::surveyCorpus(*fixtureModel("gpt2_f32"), kCorpus, modelOptions(), inline_);
    for (double v : gpt2.score("probe_induction")) {
        EXPECT_GE(v, 0.0);
        EXPECT_LE(v, 1.0);
    }
    for (double v : gpt2.score("next")) {
        EXPECT_EQ(v, 0.0);  // causal: no weight on the next token
    }
    // The sequences the probe read are kept (issue 30), in repeat order, as S7 draws them.
    EXPECT_TRUE(bert.probeSequences.empty());
    ASSERT_EQ(gpt2.probeSequences.size(), 2u);
    for (int r = 0; r < 2; ++r) {
        EXPECT_EQ(
            gpt2.probeSequences[static_cast<std::size_t>(r)],
            analysis::probeTokens(fixtureModel("gpt2_f32")->spec.vocabSize, {5}, 0, r, 4, 556));
    }
    // Without bosId the probe starts with the tokenizer's BOS (<|endoftext|> = 556 here), not
    // the corpus's first id (5).
    SurveyOptions explicitBos = modelOptions();
    explicitBos.bosId = 556;
    EXPECT_EQ(analysis::surveyCorpus(*fixtureModel("gpt2_f32"), kCorpus, explicitBos, inline_)
                  .score("probe_induction"),
              gpt2.score("probe_induction"));
    explicitBos.bosId = 5;
    EXPECT_NE(analysis::surveyCorpus(*fixtureModel("gpt2_f32"), kCorpus, explicitBos, inline_)
                  .score("probe_induction"),
              gpt2.score("probe_induction"));
}

TEST(HeadSurveyModel, RecomputedMapsGiveTheSameSentence) {
    const auto m = fixtureModel("llama_f32");
    const forward::ForwardInput input{kCorpus[0], {}};
    const auto recorded = forward::runForward(*m, input);
    forward::ForwardOptions small;
    small.mapBudgetBytes = 0;
    const auto dropped = forward::runForward(*m, input, small);
    ASSERT_FALSE(dropped.mapsRecorded);
    const auto a = analysis::surveySentence(*m, recorded, modelOptions());
    const auto b = analysis::surveySentence(*m, dropped, modelOptions());
    for (std::size_t c = 0; c < a.means.size(); ++c) {
        EXPECT_TRUE(a.means[c] == b.means[c] || (std::isnan(a.means[c]) && std::isnan(b.means[c])))
            << c;
    }
    EXPECT_EQ(a.js, b.js);
    EXPECT_EQ(a.rareKey, b.rareKey);
}

TEST(HeadSurveyModel, BadInputAndCancel) {
    const auto m = fixtureModel("gpt2_f32");
    EXPECT_THROW(analysis::surveyCorpus(*m, {}, modelOptions(), inline_), InvalidArgument);
    EXPECT_THROW(analysis::surveyCorpus(*m, {{5, m->spec.vocabSize}}, modelOptions(), inline_),
                 InvalidArgument);
    SurveyOptions shortProbe = modelOptions();
    shortProbe.probeLength = 1;
    EXPECT_THROW(analysis::surveyCorpus(*m, kCorpus, shortProbe, inline_), InvalidArgument);
    // A bidirectional model runs no probe, so its length does not matter (as the reference).
    EXPECT_NO_THROW(
        analysis::surveyCorpus(*fixtureModel("bert_f32"), kCorpus, shortProbe, inline_));
    SurveyOptions cancelled = modelOptions();
    cancelled.cancel.cancel();
    EXPECT_THROW(analysis::surveyCorpus(*m, kCorpus, cancelled, inline_), Cancelled);
}

}  // namespace
}  // namespace attnscope
