// Head prediction and correctness rules of methods.md §1.2–1.3 on golden vectors.
#include "attnscope/analysis/dependency_score.h"

#include <gtest/gtest.h>

#include "attnscope/analysis/word_attention.h"
#include "attnscope/base/error.h"

namespace attnscope::analysis {
namespace {

// Units [CLS] w1 ... wn [SEP], one token each unless `tokens` says otherwise.
WordAlignment clsWordsSep(int nWords) {
    WordAlignment a;
    a.units.push_back({UnitKind::Special, {0}, {}});
    for (int w = 0; w < nWords; ++w) {
        a.units.push_back({UnitKind::Word, {w + 1}, {w}});
        a.wordUnit.push_back(w + 1);
    }
    a.units.push_back({UnitKind::Special, {nWords + 1}, {}});
    return a;
}

TEST(DependencyScore, GoldenPredictionsOfSection1_2) {
    // The mean-mode word map of §1.1's golden tokens, words "the unbelievable cat".
    Matrix tokens(7, 7);
    for (int i = 0; i < 7; ++i) {
        for (int j = 0; j < 7; ++j) {
            tokens(i, j) = static_cast<float>(1 + (3 * i + 5 * j) % 7) / 28.0f;
        }
    }
    const Matrix w = wordAttention(tokens, {{0}, {1}, {2, 3, 4}, {5}, {6}});
    const WordAlignment a = clsWordsSep(3);
    EXPECT_EQ(predictHeads(w, a, Direction::DepToHead), (std::vector<int>{2, 3, 2}));
    EXPECT_EQ(predictHeads(w, a, Direction::HeadToDep), (std::vector<int>{3, 1, 2}));
}

TEST(DependencyScore, GoldenOffsetsOfSection1_3) {
    EXPECT_EQ(predictByOffset(3, -1), (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(predictByOffset(3, 1), (std::vector<int>{2, 3, 3}));
    EXPECT_EQ(predictByOffset(3, -3), (std::vector<int>{0, 0, 0}));
    EXPECT_EQ(predictByOffset(3, 0), (std::vector<int>{1, 2, 3}));  // self
    EXPECT_EQ(predictByOffset(3, 2), (std::vector<int>{3, 3, 3}));
}

TEST(DependencyScore, TiesGoToTheLowestIndex) {
    const WordAlignment a = clsWordsSep(4);
    Matrix w = Matrix::Zero(6, 6);
    w.row(3) << 0.2f, 0.2f, 0.2f, 0.2f, 0.2f, 0.0f;  // word 3: words 1, 2, 4 tie
    w.row(4) << 0.0f, 0.0f, 0.5f, 0.0f, 0.5f, 0.0f;  // word 4: ties with itself -> word 2
    const auto p = predictHeads(w, a, Direction::DepToHead);
    EXPECT_EQ(p[2], 1);
    EXPECT_EQ(p[3], 2);
}

// MissingWords::NoUnit leaves a word without a unit: it is no candidate and has no prediction.
TEST(DependencyScore, WordWithoutAUnitIsNoCandidate) {
    WordAlignment a = clsWordsSep(3);
    a.wordUnit[1] = -1;  // word 2's token belongs to word 1's unit
    Matrix w = Matrix::Zero(5, 5);
    w.row(1) << 0.1f, 0.0f, 0.6f, 0.3f, 0.0f;  // word 1: unit 2 (word 2's old unit) is no word
    w.row(3) << 0.0f, 0.2f, 0.7f, 0.1f, 0.0f;  // word 3: likewise
    const auto p = predictHeads(w, a, Direction::DepToHead);
    EXPECT_EQ(p[0], 3);
    EXPECT_EQ(p[1], kNoPrediction);
    EXPECT_EQ(p[2], 1);
}

TEST(DependencyScore, RowWithoutAttentionToAnotherWordHasNoPrediction) {
    // Issue 16: a causal first word attends only to itself (and [CLS]); before, the zeroed row
    // "predicted" word 1, i.e. itself, and counted wrong.
    const WordAlignment a = clsWordsSep(3);
    Matrix w = Matrix::Zero(5, 5);
    w(1, 0) = 0.5f;
    w(1, 1) = 0.5f;
    w(2, 1) = 1.0f;
    w(3, 2) = 1.0f;
    EXPECT_EQ(predictHeads(w, a, Direction::DepToHead), (std::vector<int>{kNoPrediction, 1, 2}));
    // The transpose: nothing attends to word 3 but itself.
    w(3, 3) = 1.0f;
    EXPECT_EQ(predictHeads(w, a, Direction::HeadToDep), (std::vector<int>{2, 3, kNoPrediction}));
}

TEST(DependencyScore, OneWordSentenceHasNoPrediction) {
    Matrix w = Matrix::Constant(3, 3, 1.0f / 3.0f);
    EXPECT_EQ(predictHeads(w, clsWordsSep(1), Direction::DepToHead),
              (std::vector<int>{kNoPrediction}));
}

TEST(DependencyScore, SpecialUnitsAreNeverPredicted) {
    const WordAlignment a = clsWordsSep(2);
    Matrix w = Matrix::Zero(4, 4);
    w.row(1) << 0.7f, 0.0f, 0.1f, 0.2f;
    w.row(2) << 0.1f, 0.0f, 0.0f, 0.9f;  // only [CLS] and [SEP]: no prediction, never a special
    EXPECT_EQ(predictHeads(w, a, Direction::DepToHead), (std::vector<int>{2, kNoPrediction}));
    w.row(2) << 0.1f, 0.01f, 0.0f, 0.89f;
    EXPECT_EQ(predictHeads(w, a, Direction::DepToHead), (std::vector<int>{2, 1}));
}

TEST(DependencyScore, MultiwordWordsShareTheirUnit) {
    // [CLS] "du"(de le) chat [SEP]: de and le take the row and column of "du".
    WordAlignment a;
    a.units = {{UnitKind::Special, {0}, {}},
               {UnitKind::Word, {1}, {0, 1}},
               {UnitKind::Word, {2}, {2}},
               {UnitKind::Special, {3}, {}}};
    a.wordUnit = {1, 1, 2};
    Matrix w = Matrix::Zero(4, 4);
    w.row(1) << 0.1f, 0.3f, 0.6f, 0.0f;  // du -> chat
    w.row(2) << 0.0f, 0.6f, 0.4f, 0.0f;  // chat -> du: the first word "de" wins the tie
    EXPECT_EQ(predictHeads(w, a, Direction::DepToHead), (std::vector<int>{3, 3, 1}));
    w.row(1) << 0.1f, 0.6f, 0.3f, 0.0f;  // du mostly to itself: each word predicts its sibling
    EXPECT_EQ(predictHeads(w, a, Direction::DepToHead), (std::vector<int>{2, 1, 1}));
}

TEST(DependencyScore, WrongMapShapeThrows) {
    EXPECT_THROW(predictHeads(Matrix::Zero(4, 4), clsWordsSep(3), Direction::DepToHead),
                 InvalidArgument);
}

TEST(DependencyScore, PossRuleScoresTheFollowingApostropheS) {
    GoldSentence g;
    g.words = {"John", "'s", "dog", "barks"};
    g.heads = {3, 1, 4, 0};
    g.relations = {"poss", "possessive", "nsubj", "root"};
    // John -> 's (wrong by itself), 's -> dog: counts as correct for poss.
    EXPECT_EQ(Verdict::Correct, judgePrediction(g, {2, 3, 4, 3}, 0, "poss"));
    EXPECT_EQ(Verdict::Wrong, judgePrediction(g, {2, 1, 4, 3}, 0, "poss"));
    // A prediction of the last word switches the rule off (Clark's `p < len(words)`).
    EXPECT_EQ(Verdict::Wrong, judgePrediction(g, {4, 3, 4, 3}, 0, "poss"));
    // Another relation key: no special case.
    EXPECT_EQ(Verdict::Wrong, judgePrediction(g, {2, 3, 4, 3}, 0, "nmod:poss"));
    g.words[1] = "s'";
    EXPECT_EQ(Verdict::Correct, judgePrediction(g, {2, 3, 4, 3}, 0, "poss"));
    // Without a prediction of its own or of the 's it scores, a word has no prediction.
    EXPECT_EQ(Verdict::NoPrediction, judgePrediction(g, {kNoPrediction, 3, 4, 3}, 0, "poss"));
    EXPECT_EQ(Verdict::NoPrediction, judgePrediction(g, {2, kNoPrediction, 4, 3}, 0, "poss"));
    EXPECT_EQ(Verdict::NoPrediction, judgePrediction(g, {kNoPrediction, 3, 4, 3}, 0, "nsubj"));
}

TEST(DependencyScore, SentenceFinalPossIsScoredNormally) {
    // Clark's code indexes words[i + 1] past the end here; we guard it.
    GoldSentence g;
    g.words = {"dog", "John"};
    g.heads = {0, 1};
    g.relations = {"root", "poss"};
    EXPECT_EQ(Verdict::Correct, judgePrediction(g, {2, 1}, 1, "poss"));
    EXPECT_EQ(Verdict::Wrong, judgePrediction(g, {2, 2}, 1, "poss"));
}

TEST(DependencyScore, RelationKeys) {
    EXPECT_EQ(relationKey("nsubj:pass", false), "nsubj:pass");
    EXPECT_EQ(relationKey("nsubj:pass", true), "nsubj");
    EXPECT_EQ(relationKey("det", true), "det");
    EXPECT_EQ(directionName(Direction::DepToHead), "dep->head");
    EXPECT_EQ(directionName(Direction::HeadToDep), "head<-dep");
}

}  // namespace
}  // namespace attnscope::analysis
