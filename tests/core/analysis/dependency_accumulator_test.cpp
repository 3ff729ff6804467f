// Corpus-level dependency scoring (dependency_accumulator.h) on synthetic attention: an oracle
// head, a previous-word head, multiword tokens, the poss rule, skipping, merging and Clark's
// tie rules (methods.md §1.2–1.3).
#include "attnscope/analysis/dependency_accumulator.h"

#include <cmath>

#include <gtest/gtest.h>

#include "attnscope/base/error.h"

namespace attnscope::analysis {
namespace {

struct WordSpec {
    WordSpec(std::string f, int h, std::string r, int p = 1, std::string s = "")
        : form(std::move(f)), head(h), rel(std::move(r)), pieces(p), surface(std::move(s)) {}

    std::string form;
    int head = 0;
    std::string rel;
    int pieces = 1;       // tokens of the word; 0 = inside the previous word's multiword token
    std::string surface;  // the multiword token's text, on its first word
};

// A sentence as WordPiece would give it: [CLS] pieces... [SEP], words joined by spaces.
struct TestSentence {
    GoldSentence gold;
    std::vector<tokenize::Token> tokens;
    std::vector<int> firstToken;  // [nWords] first token of each word's unit
};

TestSentence build(const std::vector<WordSpec>& words) {
    TestSentence s;
    std::string text;
    tokenize::Token cls;
    cls.text = "[CLS]";
    cls.special = true;
    s.tokens.push_back(cls);
    for (const WordSpec& w : words) {
        s.gold.words.push_back(w.form);
        s.gold.heads.push_back(w.head);
        s.gold.relations.push_back(w.rel);
        if (w.pieces == 0) {  // shares the multiword token of the previous word
            s.gold.wordSpans.push_back(s.gold.wordSpans.back());
            s.firstToken.push_back(s.firstToken.back());
            continue;
        }
        if (!text.empty()) {
            text.append(" ");
        }
        const std::string surface = w.surface.empty() ? w.form : w.surface;
        const std::size_t begin = text.size();
        text.append(surface);
        s.gold.wordSpans.push_back({begin, text.size()});
        s.firstToken.push_back(static_cast<int>(s.tokens.size()));
        const std::size_t len = surface.size();
        const auto pieces = static_cast<std::size_t>(w.pieces);
        for (std::size_t k = 0; k < pieces; ++k) {
            tokenize::Token t;
            t.byteBegin = begin + k * len / pieces;
            t.byteEnd = begin + (k + 1) * len / pieces;
            t.text = text.substr(t.byteBegin, t.byteEnd - t.byteBegin);
            s.tokens.push_back(t);
        }
    }
    tokenize::Token sep = cls;
    sep.text = "[SEP]";
    s.tokens.push_back(sep);
    return s;
}

// Every token of word w attends to the first token of word target(w) (1-based, 0 = [CLS]);
// special tokens attend to themselves.
template <class Target>
Matrix pointingMap(const TestSentence& s, Target target) {
    const auto n = static_cast<Eigen::Index>(s.tokens.size());
    Matrix a = Matrix::Identity(n, n);
    const std::size_t nWords = s.gold.words.size();
    for (std::size_t w = 0; w < nWords; ++w) {
        const int first = s.firstToken[w];
        const bool last = w + 1 == nWords;
        const int end = last ? static_cast<int>(n) - 1 : s.firstToken[w + 1];
        const int t = target(static_cast<int>(w));
        for (int tok = first; tok < end; ++tok) {
            a.row(tok).setZero();
            a(tok, t == 0 ? 0 : s.firstToken[static_cast<std::size_t>(t - 1)]) = 1.0f;
        }
    }
    return a;
}

// A model of one layer with one head whose map is `a`.
forward::ForwardResult oneHead(const Matrix& a) {
    forward::ForwardResult r;
    r.nLayers = 1;
    r.nHeads = 1;
    r.nTokens = static_cast<int>(a.rows());
    r.probs.assign(a.data(), a.data() + a.size());
    return r;
}

// Head (0, 0) points every word to its gold head (the oracle), head (0, 1) to the previous word.
forward::ForwardResult oracleAndPrevious(const TestSentence& s) {
    const Matrix oracle = pointingMap(s, [&](int w) { return s.gold.heads[std::size_t(w)]; });
    const Matrix previous = pointingMap(s, [](int w) { return w; });
    forward::ForwardResult r;
    r.nLayers = 1;
    r.nHeads = 2;
    r.nTokens = static_cast<int>(s.tokens.size());
    r.probs.assign(oracle.data(), oracle.data() + oracle.size());
    r.probs.insert(r.probs.end(), previous.data(), previous.data() + previous.size());
    return r;
}

TestSentence catSentence() {
    return build({{"The", 3, "det"},
                  {"old", 3, "amod", 2},
                  {"cat", 4, "nsubj"},
                  {"sat", 0, "root", 3},
                  {"on", 7, "case"},
                  {"the", 7, "det"},
                  {"mat", 4, "obl", 2},
                  {".", 4, "punct"}});
}

TestSentence multiwordSentence() {
    // French "du chat dort": "du" = "de" + "le".
    return build({{"de", 3, "case", 1, "du"},
                  {"le", 3, "det", 0},
                  {"chat", 4, "nsubj", 2},
                  {"dort", 0, "root"}});
}

TEST(DependencyAccumulator, OracleScoresEveryRelationButRoot) {
    DependencyAccumulator acc(1, 2);
    for (const TestSentence& s : {catSentence(), multiwordSentence()}) {
        const SentenceOutcome out = acc.addSentence(s.gold, s.tokens, oracleAndPrevious(s));
        ASSERT_TRUE(out.scored) << out.reason << ": " << out.detail;
    }
    EXPECT_EQ(acc.sentencesScored(), 2);
    EXPECT_EQ(acc.count("det"), 3);
    EXPECT_EQ(acc.count("all"), 12);
    for (const std::string& rel : acc.relations()) {
        const Counts c = acc.counts(rel, {0, 0}, Direction::DepToHead);
        if (rel == "root") {
            EXPECT_EQ(c.correct, 0);  // attention never predicts ROOT
        } else if (rel == "all") {
            EXPECT_EQ(c.correct, c.total - 2) << "all but the two roots";
            // The roots attend only to [CLS]: no prediction, outside the accuracy.
            EXPECT_EQ(c.noPrediction, 2);
            EXPECT_DOUBLE_EQ(c.accuracy(), 1.0);
        } else {
            EXPECT_EQ(c.correct, c.total) << rel;
            EXPECT_DOUBLE_EQ(c.accuracy(), 1.0) << rel;
        }
    }
}

TEST(DependencyAccumulator, PreviousWordHeadEqualsOffsetMinusOne) {
    // Word 0 must not be the root: the baseline predicts ROOT for it, attention never can.
    DependencyAccumulator acc(1, 2);
    const TestSentence poss = build({{"John", 3, "poss", 2},
                                     {"'s", 1, "possessive"},
                                     {"dog", 4, "nsubj"},
                                     {"barks", 0, "root", 2},
                                     {".", 4, "punct"}});
    for (const TestSentence& s : {catSentence(), poss}) {
        ASSERT_TRUE(acc.addSentence(s.gold, s.tokens, oracleAndPrevious(s)).scored);
    }
    for (const std::string& rel : acc.relations()) {
        const Counts head = acc.counts(rel, {0, 1}, Direction::DepToHead);
        const Counts base = acc.baselineCounts(rel, -1);
        EXPECT_EQ(head.correct, base.correct) << rel;
        EXPECT_EQ(head.total, base.total) << rel;
    }
}

TEST(DependencyAccumulator, PossCountsTheApostropheSPrediction) {
    GoldSentence g;
    g.words = {"John", "'s", "dog", "barks"};
    g.heads = {3, 1, 4, 0};
    g.relations = {"poss", "possessive", "nsubj", "root"};
    DependencyAccumulator acc(1, 1);
    // dep->head: John -> 's, 's -> dog (the head that marks 's as the dependent, §1.2 rule 6).
    ASSERT_TRUE(acc.addPredictions(g, {{2, 3, 4, 3}, {1, 1, 1, 1}}).scored);
    EXPECT_EQ(acc.counts("poss", {0, 0}, Direction::DepToHead).correct, 1);
    EXPECT_EQ(acc.counts("possessive", {0, 0}, Direction::DepToHead).correct, 0);
    EXPECT_EQ(acc.counts("all", {0, 0}, Direction::DepToHead).correct, 2);
}

TEST(DependencyAccumulator, SentenceWithAWordWithoutTokenIsSkippedAndCounted) {
    TestSentence s = catSentence();
    s.tokens.erase(s.tokens.begin() + s.firstToken[2]);  // "cat" loses its only token
    forward::ForwardResult r = oracleAndPrevious(catSentence());
    const int n = static_cast<int>(s.tokens.size());
    r.nTokens = n;
    r.probs.assign(static_cast<std::size_t>(2 * n * n), 1.0f / static_cast<float>(n));
    DependencyAccumulator acc(1, 2);
    const SentenceOutcome out = acc.addSentence(s.gold, s.tokens, r);
    EXPECT_FALSE(out.scored);
    EXPECT_EQ(out.reason, kSkipUnaligned);
    EXPECT_NE(out.detail.find("'cat'"), std::string::npos) << out.detail;
    acc.addSkipped("longer than the model's positions");
    EXPECT_EQ(acc.sentencesScored(), 0);
    EXPECT_EQ(acc.sentencesSkipped(), 2);
    EXPECT_EQ(acc.skipReasons().at(std::string(kSkipUnaligned)), 1);
    EXPECT_TRUE(acc.relations().empty());
    EXPECT_EQ(acc.count("all"), 0);
    EXPECT_FALSE(acc.bestHead("all").has_value());
}

GoldSentence threeWords() {
    GoldSentence g;
    g.words = {"the", "cat", "sleeps"};
    g.heads = {2, 3, 0};
    g.relations = {"det", "nsubj", "root"};
    return g;
}

// GPT-2-like tokens (no special tokens) for "go home now", one token per word.
TestSentence causalSentence() {
    TestSentence s;
    s.gold.words = {"go", "home", "now"};
    s.gold.heads = {0, 1, 1};
    s.gold.relations = {"root", "obj", "advmod"};
    s.gold.wordSpans = {{0, 2}, {3, 7}, {8, 11}};
    const std::string text = "go home now";
    for (const auto& [b, e] : {std::pair<std::size_t, std::size_t>{0, 2}, {2, 7}, {7, 11}}) {
        tokenize::Token t;
        t.byteBegin = b;
        t.byteEnd = e;
        t.text = text.substr(b, e - b);
        s.tokens.push_back(t);
    }
    s.firstToken = {0, 1, 2};
    return s;
}

TEST(DependencyAccumulator, CausalFirstAndLastWordsHaveNoPrediction) {
    // Issue 16. A causal map: the first word's dep->head row attends only to itself, nothing
    // but the last word itself attends to it. Before, the first word "predicted" itself (wrong)
    // in dep->head, and the last word's all-zero column went to word 1 in head<-dep — right by
    // accident, as its gold head is word 1.
    const TestSentence s = causalSentence();
    Matrix a(3, 3);
    a << 1.0f, 0.0f, 0.0f,  //
        0.6f, 0.4f, 0.0f,   //
        0.3f, 0.3f, 0.4f;
    const forward::ForwardResult r = oneHead(a);
    DependencyAccumulator acc(1, 1);
    ASSERT_TRUE(acc.addSentence(s.gold, s.tokens, r).scored);
    // dep->head: go -, home -> go (right), now -> go (tie with home: lowest index; right).
    const Counts dep = acc.counts("all", {0, 0}, Direction::DepToHead);
    EXPECT_EQ(dep.correct, 2);
    EXPECT_EQ(dep.noPrediction, 1);
    EXPECT_EQ(dep.total, 3);
    EXPECT_DOUBLE_EQ(dep.accuracy(), 1.0);
    EXPECT_EQ(acc.counts("root", {0, 0}, Direction::DepToHead).noPrediction, 1);
    // head<-dep: go <- home (wrong, root), home <- now (wrong), now -.
    const Counts head = acc.counts("all", {0, 0}, Direction::HeadToDep);
    EXPECT_EQ(head.correct, 0);
    EXPECT_EQ(head.noPrediction, 1);
    EXPECT_DOUBLE_EQ(head.accuracy(), 0.0);
    const Counts advmod = acc.counts("advmod", {0, 0}, Direction::HeadToDep);
    EXPECT_EQ(advmod.correct, 0);
    EXPECT_EQ(advmod.noPrediction, 1);
    EXPECT_TRUE(std::isnan(advmod.accuracy()));
    // advmod: dep->head 1 of 1; head<-dep predicted nothing and takes no part.
    const auto best = acc.bestHead("advmod");
    ASSERT_TRUE(best.has_value());
    EXPECT_EQ(best->direction, Direction::DepToHead);
    EXPECT_EQ(best->counts.correct, 1);
}

TEST(DependencyAccumulator, BestHeadComparesAccuraciesOverWordsWithAPrediction) {
    // Head (0, 0) dep->head: 1 right of 1 predicted; (0, 0) head<-dep: 2 right of 3. The best is
    // the 100 % head although it has fewer correct words.
    DependencyAccumulator acc(1, 1);
    GoldSentence g = threeWords();
    g.relations = {"dep", "dep", "dep"};
    g.heads = {2, 3, 1};
    acc.addPredictions(g, {{2, kNoPrediction, kNoPrediction}, {2, 3, 2}});
    const auto best = acc.bestHead("dep");
    ASSERT_TRUE(best.has_value());
    EXPECT_EQ(best->direction, Direction::DepToHead);
    EXPECT_EQ(best->counts.predicted(), 1);
    // No head predicting anything: no best head.
    DependencyAccumulator none(1, 1);
    none.addPredictions(g, {{kNoPrediction, kNoPrediction, kNoPrediction},
                            {kNoPrediction, kNoPrediction, kNoPrediction}});
    EXPECT_FALSE(none.bestHead("dep").has_value());
    EXPECT_EQ(none.counts("dep", {0, 0}, Direction::HeadToDep).noPrediction, 3);
}

TEST(DependencyAccumulator, MultiwordWordsGetTheirOwnTokensUnlessSharing) {
    // Issue 16: "tomorrow's game", UD "tomorrow" + "'s" under the multiword token "tomorrow's";
    // WordPiece-like tokens [CLS] tomorrow 's game [SEP]. "tomorrow" attends to "game", "'s" to
    // "tomorrow", "game" to "'s".
    GoldSentence g;
    g.words = {"tomorrow", "'s", "game"};
    g.heads = {3, 1, 0};
    g.relations = {"nmod:poss", "case", "root"};
    g.wordSpans = {{0, 10}, {0, 10}, {11, 15}};
    g.ownSpans = {{0, 8}, {8, 10}, {11, 15}};
    std::vector<tokenize::Token> tokens(5);
    const std::pair<std::size_t, std::size_t> offsets[] = {
        {0, 0}, {0, 8}, {8, 10}, {11, 15}, {0, 0}};
    for (std::size_t t = 0; t < tokens.size(); ++t) {
        tokens[t].byteBegin = offsets[t].first;
        tokens[t].byteEnd = offsets[t].second;
        tokens[t].special = t == 0 || t == 4;
    }
    Matrix a = Matrix::Identity(5, 5);
    a.row(1) << 0, 0, 0, 1, 0;
    a.row(2) << 0, 1, 0, 0, 0;
    a.row(3) << 0, 0, 1, 0, 0;
    const forward::ForwardResult r = oneHead(a);
    DependencyAccumulator split(1, 1);
    ASSERT_TRUE(split.addSentence(g, tokens, r).scored);
    EXPECT_EQ(split.counts("nmod:poss", {0, 0}, Direction::DepToHead).correct, 1);
    EXPECT_EQ(split.counts("case", {0, 0}, Direction::DepToHead).correct, 1);
    // Sharing: both words read the unit's mean row, half to "game", half to the unit itself, so
    // "tomorrow" ties "'s" with "game" and the lower index, "'s", wins.
    DependencyAccumulator shared(1, 1, {FromAggregation::Mean, false, MultiwordRule::Share});
    ASSERT_TRUE(shared.addSentence(g, tokens, r).scored);
    EXPECT_EQ(shared.counts("nmod:poss", {0, 0}, Direction::DepToHead).correct, 0);
    EXPECT_EQ(shared.counts("case", {0, 0}, Direction::DepToHead).correct, 1);
    EXPECT_THROW(split.merge(shared), InvalidArgument);
}

TEST(DependencyAccumulator, BadGoldHeadIsSkipped) {
    GoldSentence g;
    g.words = {"a", "b"};
    g.heads = {2, 3};
    g.relations = {"det", "root"};
    DependencyAccumulator acc(1, 1);
    EXPECT_EQ(acc.addPredictions(g, {{2, 1}, {2, 1}}).reason, kSkipBadHead);
    g.heads = {2, 0};
    g.relations = {"all", "root"};
    EXPECT_EQ(acc.addPredictions(g, {{2, 1}, {2, 1}}).reason, kSkipReservedLabel);
    g.relations = {"det"};
    EXPECT_THROW(acc.addPredictions(g, {{2, 1}, {2, 1}}), InvalidArgument);
    EXPECT_EQ(acc.sentencesSkipped(), 2);
}

TEST(DependencyAccumulator, MergeEqualsFillingOne) {
    const TestSentence a = catSentence();
    const TestSentence b = multiwordSentence();
    DependencyAccumulator both(1, 2);
    DependencyAccumulator first(1, 2);
    DependencyAccumulator second(1, 2);
    both.addSentence(a.gold, a.tokens, oracleAndPrevious(a));
    both.addSentence(b.gold, b.tokens, oracleAndPrevious(b));
    both.addSkipped("x");
    first.addSentence(a.gold, a.tokens, oracleAndPrevious(a));
    second.addSentence(b.gold, b.tokens, oracleAndPrevious(b));
    second.addSkipped("x");
    first.merge(second);
    EXPECT_EQ(first.relations(), both.relations());
    EXPECT_EQ(first.sentencesScored(), 2);
    EXPECT_EQ(first.skipReasons(), both.skipReasons());
    for (const std::string& rel : both.relations()) {
        EXPECT_EQ(first.count(rel), both.count(rel));
        for (int h = 0; h < 2; ++h) {
            for (Direction d : {Direction::DepToHead, Direction::HeadToDep}) {
                EXPECT_EQ(first.counts(rel, {0, h}, d).correct, both.counts(rel, {0, h}, d).correct)
                    << rel << " head " << h << " " << directionName(d);
                EXPECT_EQ(first.counts(rel, {0, h}, d).noPrediction,
                          both.counts(rel, {0, h}, d).noPrediction)
                    << rel << " head " << h << " " << directionName(d);
            }
        }
        for (int o = kMinOffset; o <= kMaxOffset; ++o) {
            EXPECT_EQ(first.baselineCounts(rel, o).correct, both.baselineCounts(rel, o).correct);
        }
    }
    EXPECT_THROW(first.merge(DependencyAccumulator(2, 2)), InvalidArgument);
    EXPECT_THROW(first.merge(DependencyAccumulator(1, 2, {FromAggregation::First, false})),
                 InvalidArgument);
}

TEST(DependencyAccumulator, BestHeadTiesGoToLargerLayerHeadThenHeadToDep) {
    DependencyAccumulator acc(2, 2);
    // Every head and direction equally good: Clark's sorted tuples pick (1, 1, "head<-dep").
    acc.addPredictions(threeWords(), std::vector<std::vector<int>>(8, {2, 3, 1}));
    auto best = acc.bestHead("det");
    ASSERT_TRUE(best.has_value());
    EXPECT_EQ(best->head, (HeadId{1, 1}));
    EXPECT_EQ(best->direction, Direction::HeadToDep);
    EXPECT_EQ(best->counts.correct, 1);
    // Only (0, 1) dep->head gets nsubj right.
    DependencyAccumulator one(2, 2);
    std::vector<std::vector<int>> p(8, {2, 1, 1});
    p[(0 * 2 + 1) * kDirections + 0] = {2, 3, 1};
    one.addPredictions(threeWords(), p);
    best = one.bestHead("nsubj");
    EXPECT_EQ(best->head, (HeadId{0, 1}));
    EXPECT_EQ(best->direction, Direction::DepToHead);
    EXPECT_DOUBLE_EQ(best->counts.accuracy(), 1.0);
    const Matrix map = one.accuracyHeatmap("nsubj", Direction::DepToHead);
    EXPECT_EQ(map(0, 1), 1.0f);
    EXPECT_EQ(map(1, 1), 0.0f);
    EXPECT_TRUE(std::isnan(one.accuracyHeatmap("amod", Direction::DepToHead)(0, 0)));
}

TEST(DependencyAccumulator, BestOffsetTiesGoToTheLargerOffset) {
    DependencyAccumulator acc(1, 1);
    acc.addPredictions(threeWords(), {{1, 1, 1}, {1, 1, 1}});
    // Offset +1 predicts [2, 3, 3], +2 [3, 3, 3], -3 [0, 0, 0] (methods.md §1.3 clamping).
    EXPECT_EQ(acc.bestOffset("det")->offset, 1);
    EXPECT_EQ(acc.bestOffset("nsubj")->offset, 2);  // +1 and +2 both right: the larger wins
    EXPECT_EQ(acc.bestOffset("root")->offset, -3);
    EXPECT_EQ(acc.baselineCounts("all", 1).correct, 2);
    // A one-word sentence: offsets -3, -2 and -1 all predict ROOT; the largest wins.
    GoldSentence one;
    one.words = {"Hello"};
    one.heads = {0};
    one.relations = {"intj"};
    acc.addPredictions(one, {{1}, {1}});
    EXPECT_EQ(acc.bestOffset("intj")->offset, -1);
    EXPECT_THROW(acc.baselineCounts("all", 3), InvalidArgument);
}

TEST(DependencyAccumulator, RelationTableSkipsRootAndPunctAndSplitsRare) {
    GoldSentence g;
    g.words = {"a", "b", "c", "d", "e", "."};
    g.heads = {4, 4, 4, 0, 4, 4};
    g.relations = {"det", "det", "nsubj:pass", "root", "nsubj", "punct"};
    DependencyAccumulator merged(1, 1, {FromAggregation::Mean, true});
    DependencyAccumulator raw(1, 1);
    const std::vector<std::vector<int>> p(2, {4, 1, 1, 1, 1, 1});
    merged.addPredictions(g, p);
    merged.addPredictions(g, p);
    raw.addPredictions(g, p);
    const RelationTable t = merged.relationTable(4);
    ASSERT_EQ(t.rows.size(), 3u);
    EXPECT_EQ(t.rows[0].relation, "all");
    EXPECT_EQ(t.rows[0].count, 12);
    EXPECT_EQ(t.rows[1].relation, "det");  // 4, ties with nsubj: by name
    EXPECT_EQ(t.rows[2].relation, "nsubj");
    EXPECT_EQ(t.rows[1].best.counts.correct, 2);
    EXPECT_EQ(t.rows[1].baseline.offset, 2);  // b -> d; a -> d would need +3
    EXPECT_TRUE(t.rare.empty());
    const RelationTable r = raw.relationTable(2);
    ASSERT_EQ(r.rows.size(), 2u);  // all, det
    ASSERT_EQ(r.rare.size(), 2u);  // nsubj, nsubj:pass
    EXPECT_EQ(r.rare[0].relation, "nsubj");
    EXPECT_EQ(r.rare[1].relation, "nsubj:pass");
    EXPECT_EQ(raw.count("nsubj:pass"), 1);
    EXPECT_EQ(merged.count("nsubj"), 4);
}

TEST(DependencyAccumulator, ShapeMismatchThrows) {
    const TestSentence s = catSentence();
    DependencyAccumulator acc(2, 2);
    EXPECT_THROW(acc.addSentence(s.gold, s.tokens, oracleAndPrevious(s)), InvalidArgument);
    DependencyAccumulator ok(1, 2);
    std::vector<tokenize::Token> fewer = s.tokens;
    fewer.pop_back();
    EXPECT_THROW(ok.addSentence(s.gold, fewer, oracleAndPrevious(s)), InvalidArgument);
    EXPECT_THROW(ok.counts("det", {1, 0}, Direction::DepToHead), InvalidArgument);
    EXPECT_THROW(DependencyAccumulator(0, 1), InvalidArgument);
}

}  // namespace
}  // namespace attnscope::analysis
