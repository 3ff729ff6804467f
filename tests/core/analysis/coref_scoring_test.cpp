// Coreference scoring rules on hand-written CorefUD documents (issue 16): windows (R4), scored
// mentions (R5, R7), baselines (R8, D8-D10) and the accumulator (R6 counts, bestHead, merge).
#include "attnscope/analysis/coref_scoring.h"

#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "coref_test_support.h"

namespace attnscope::analysis {
namespace {

using coreftest::line;

// Sentences of n words "w w w", one document each unless `newdoc` says otherwise.
std::string plainSentence(int words, bool newdoc) {
    std::string out = newdoc ? "# newdoc id = d\n" : "";
    for (int i = 1; i <= words; ++i) {
        out += line(i, "w", "w", "X", "", i == 1 ? 0 : 1, "");
    }
    return out + "\n";
}

std::size_t wordsIn(std::string_view t) {
    return static_cast<std::size_t>(std::count(t.begin(), t.end(), 'w'));
}

// The rule as R4 states it: grow while the joined text fits.
CorefWindows naiveWindows(const CorefCorpus& corpus,
                          const std::function<std::size_t(std::string_view)>& count,
                          std::size_t limit) {
    CorefWindows out;
    for (std::size_t d = 0; d < corpus.coref.documents.size(); ++d) {
        const auto& doc = corpus.coref.documents[d];
        std::optional<CorefWindow> current;
        std::string joined;
        for (int s = doc.firstSentence; s < doc.endSentence; ++s) {
            const std::string& t = corpus.texts[static_cast<std::size_t>(s)];
            if (current && count(joined + " " + t) <= limit) {
                joined += " " + t;
                current->endSentence = s + 1;
                continue;
            }
            if (current) {
                out.windows.push_back(*current);
                current.reset();
            }
            if (count(t) <= limit) {
                current = CorefWindow{static_cast<int>(d), s, s + 1};
                joined = t;
            } else {
                ++out.sentencesSkipped;
            }
        }
        if (current) {
            out.windows.push_back(*current);
        }
    }
    return out;
}

TEST(CorefWindows, GreedySkipTooLongAndNeverAcrossDocuments) {
    testing::ScratchDir dir;
    // Document 0: 2, 3, 4, 9, 2 words; document 1: 1, 1 words.
    const CorefCorpus corpus = coreftest::readCorpus(
        dir, plainSentence(2, true) + plainSentence(3, false) + plainSentence(4, false) +
                 plainSentence(9, false) + plainSentence(2, false) + plainSentence(1, true) +
                 plainSentence(1, false));
    const auto words = [](std::string_view t) { return wordsIn(t) + 2; };
    const CorefWindows w = makeWindows(corpus, words, 10);
    const std::vector<CorefWindow> expected = {{0, 0, 2}, {0, 2, 3}, {0, 4, 5}, {1, 5, 7}};
    EXPECT_EQ(w.windows, expected);
    EXPECT_EQ(w.sentencesSkipped, 1);  // the 9 words (11 tokens)
    // The last window of document 0 and document 1 would fit together: they stay apart.

    // Counts that joined texts exceed (the per-sentence guess overshoots) or stay under (it
    // falls short): the cut still equals the rule's.
    const std::function<std::size_t(std::string_view)> counts[] = {
        [](std::string_view t) { return wordsIn(t) + wordsIn(t) / 3 + 2; },
        [](std::string_view t) { return wordsIn(t) - wordsIn(t) / 4 + 2; }};
    for (const auto& count : counts) {
        for (std::size_t limit : {3, 5, 8, 10, 12, 20, 40}) {
            SCOPED_TRACE(limit);
            const CorefWindows fast = makeWindows(corpus, count, limit);
            const CorefWindows naive = naiveWindows(corpus, count, limit);
            EXPECT_EQ(fast.windows, naive.windows);
            EXPECT_EQ(fast.sentencesSkipped, naive.sentencesSkipped);
        }
    }
}

TEST(CorefWindows, WindowTextJoinsSentencesWithOneSpace) {
    testing::ScratchDir dir;
    const CorefCorpus corpus = coreftest::readCorpus(
        dir, line(1, "Hi", "hi", "X", "", 0, "SpaceAfter=No") + line(2, ".", ".", "X", "", 1, "") +
                 "\n" + line(1, "Go", "go", "X", "", 0, "") + "\n");
    const WindowText t = windowText(corpus, {0, 0, 2});
    EXPECT_EQ(t.text, "Hi. Go");
    EXPECT_EQ(t.wordSpans, (std::vector<ByteSpan>{{0, 2}, {2, 3}, {4, 6}}));
    EXPECT_EQ(t.ownSpans, t.wordSpans);
    EXPECT_EQ(t.forms, (std::vector<std::string>{"Hi", ".", "Go"}));
    EXPECT_EQ(t.firstWord, (std::vector<int>{0, 2}));
    EXPECT_EQ(windowText(corpus, {0, 1, 2}).wordSpans, (std::vector<ByteSpan>{{0, 2}}));
}

// "Kim saw her brother . She smiled . The dog barked . It ran ." Kim, her, She = entity 1;
// "her brother" = 2; "The dog", "dog", "It" = 5.
const std::string kStory =
    line(1, "Kim", "Kim", "PROPN", "", 2, "Entity=(1-person)") +
    line(2, "saw", "see", "VERB", "", 0, "") +
    line(3, "her", "she", "PRON", "Gender=Fem|Number=Sing|Person=3", 4,
         "Entity=(2-person(1-person)") +
    line(4, "brother", "brother", "NOUN", "Gender=Masc|Number=Sing", 2, "Entity=2)") +
    line(5, ".", ".", "PUNCT", "", 2, "") + "\n" +
    line(1, "She", "she", "PRON", "Gender=Fem|Number=Sing|Person=3", 2, "Entity=(1-person)") +
    line(2, "smiled", "smile", "VERB", "", 0, "") + line(3, ".", ".", "PUNCT", "", 2, "") + "\n" +
    line(1, "The", "the", "DET", "", 2, "Entity=(5-animal") +
    line(2, "dog", "dog", "NOUN", "Number=Sing", 3, "Entity=(5-animal)5)") +
    line(3, "barked", "bark", "VERB", "", 0, "") + line(4, ".", ".", "PUNCT", "", 3, "") + "\n" +
    line(1, "It", "it", "PRON", "Number=Sing", 2, "Entity=(5-animal)") +
    line(2, "ran", "run", "VERB", "", 0, "") + line(3, ".", ".", "PUNCT", "", 2, "") + "\n";

constexpr auto kNearest = static_cast<std::size_t>(CorefBaseline::Nearest);
constexpr auto kHeadMatch = static_cast<std::size_t>(CorefBaseline::HeadMatch);
constexpr auto kSieve = static_cast<std::size_t>(CorefBaseline::Sieve);

TEST(CorefMentions, ScoredMentionsNeedAnEarlierMentionWithAnotherHead) {
    testing::ScratchDir dir;
    const CorefCorpus corpus = coreftest::readCorpus(dir, kStory);
    // Words: Kim 0, saw 1, her 2, brother 3, . 4, She 5, smiled 6, . 7, The 8, dog 9, barked 10,
    // . 11, It 12.
    const std::vector<ScoredMention> ms = scoredMentions(corpus, {0, 0, 4});
    ASSERT_EQ(ms.size(), 3u);
    // "her": Kim starts before it; "her brother" starts at the same word, so is no antecedent
    // (and not a candidate).
    EXPECT_EQ(ms[0].headWord, 2);
    EXPECT_EQ(ms[0].type, MentionGroup::Pronoun);
    EXPECT_EQ(ms[0].antecedentWords, (std::vector<int>{0}));
    EXPECT_EQ(ms[0].baselineCorrect, (std::array<bool, 3>{true, false, true}));
    // "She": nearest is "her brother" (starts with "her", ends later): wrong; "her" has lemma
    // "she", so head match and the sieve's second step pick it.
    EXPECT_EQ(ms[1].headWord, 5);
    EXPECT_EQ(ms[1].antecedentWords, (std::vector<int>{0, 2}));
    EXPECT_EQ(ms[1].baselineCorrect, (std::array<bool, 3>{false, true, true}));
    // "It": the inner "dog" shares the head of "The dog" (R5: not an antecedent of it, so it is
    // not scored); both give one antecedent word.
    EXPECT_EQ(ms[2].headWord, 12);
    EXPECT_EQ(ms[2].antecedentWords, (std::vector<int>{9}));
    EXPECT_EQ(ms[2].type, MentionGroup::Pronoun);
    EXPECT_TRUE(ms[2].baselineCorrect[kNearest]);

    // A window of the last two sentences: "It" is scored with "dog" only.
    const std::vector<ScoredMention> late = scoredMentions(corpus, {0, 2, 4});
    ASSERT_EQ(late.size(), 1u);
    EXPECT_EQ(late[0].headWord, 4);
    EXPECT_EQ(late[0].antecedentWords, (std::vector<int>{1}));
    EXPECT_TRUE(scoredMentions(corpus, {0, 1, 2}).empty());

    // Arcs: mention head to each antecedent head, nearest first.
    const std::vector<CorefArc> arcs = corefArcs(corpus, {0, 0, 4});
    ASSERT_EQ(arcs.size(), 4u);
    EXPECT_EQ(arcs[1].from, 5);
    EXPECT_EQ(arcs[1].to, 2);
    EXPECT_EQ(arcs[2].to, 0);
    EXPECT_EQ(arcs[3].from, 12);
    EXPECT_EQ(arcs[3].mention, ms[2].mention);
}

TEST(CorefMentions, TypeFromTheHeadWordsUpos) {
    testing::ScratchDir dir;
    const CorefCorpus corpus =
        coreftest::readCorpus(dir, line(1, "Kim", "Kim", "PROPN", "", 0, "Entity=(1)") +
                                       line(2, "Kim", "Kim", "PROPN", "", 1, "Entity=(1)") +
                                       line(3, "the", "the", "DET", "", 4, "Entity=(1") +
                                       line(4, "boss", "boss", "NOUN", "", 1, "Entity=1)") + "\n");
    const std::vector<ScoredMention> ms = scoredMentions(corpus, {0, 0, 1});
    ASSERT_EQ(ms.size(), 2u);
    EXPECT_EQ(ms[0].type, MentionGroup::Proper);
    EXPECT_EQ(ms[1].type, MentionGroup::Nominal);  // head "boss", not "the"
    EXPECT_EQ(ms[1].headWord, 3);
}

// One word per mention; each word its own head word. Feats "" = `_`.
std::string sieveWord(int id, std::string_view form, std::string_view lemma, std::string_view feats,
                      int entity) {
    return line(id, form, lemma, "NOUN", feats, id == 1 ? 0 : 1,
                std::string("Entity=(").append(std::to_string(entity)).append(")"));
}

TEST(CorefBaselines, EverySieveStepAndCaseFolding) {
    testing::ScratchDir dir;
    const CorefCorpus corpus = coreftest::readCorpus(
        dir, sieveWord(1, "Cats", "cat", "Number=Plur", 1) +
                 sieveWord(2, "dog", "dog", "Number=Sing", 2) +
                 sieveWord(3, "cats", "cat", "Number=Plur", 1) +     // (1) same forms
                 sieveWord(4, "Cat", "cat", "Number=Sing", 3) +      // first of 3
                 sieveWord(5, "kitty", "kitty", "Number=Sing", 3) +  // (3) agreement
                 sieveWord(6, "Dogs", "dog", "Number=Plur", 2) +     // (2) same lemma
                 sieveWord(7, "they", "they", "Number=Dual", 2) +    // (4) all
                 sieveWord(8, "one", "one", "", 5) +                 // first of 5, no FEATS
                 sieveWord(9, "item", "item", "Number=Dual", 5) +    // (3) absent agrees
                 "\n" + sieveWord(1, "Straße", "Straße", "", 7) +
                 sieveWord(2, "Haus", "Haus", "", 8) + sieveWord(3, "Straßen", "STRASSE", "", 7) +
                 "\n");
    const std::vector<ScoredMention> ms = scoredMentions(corpus, {0, 0, 1});
    ASSERT_EQ(ms.size(), 5u);
    using B = std::array<bool, 3>;  // nearest, head match, sieve
    EXPECT_EQ(ms[0].headWord, 2);
    EXPECT_EQ(ms[0].baselineCorrect, (B{false, true, true}));  // "cats" = casefold("Cats")
    EXPECT_EQ(ms[1].headWord, 4);
    EXPECT_EQ(ms[1].baselineCorrect, (B{true, false, true}));  // "dog", Sing; "Cat" nearer
    EXPECT_EQ(ms[2].headWord, 5);
    // Lemma "dog" before agreement (Plur against dog's Sing).
    EXPECT_EQ(ms[2].baselineCorrect, (B{false, true, true}));
    EXPECT_EQ(ms[3].headWord, 6);
    EXPECT_EQ(ms[3].baselineCorrect, (B{true, false, true}));  // nobody agrees: all, "Dogs"
    EXPECT_EQ(ms[4].headWord, 8);
    // "they" (Dual) and "one" (no Number) agree; "one" is nearer. Were absent features a
    // disagreement, "they" (entity 2) would be picked.
    EXPECT_EQ(ms[4].baselineCorrect, (B{true, false, true}));

    // D8: full case folding, "STRASSE" and "Straße" both fold to "strasse".
    const std::vector<ScoredMention> german = scoredMentions(corpus, {0, 1, 2});
    ASSERT_EQ(german.size(), 1u);
    EXPECT_EQ(german[0].baselineCorrect, (B{false, true, true}));
}

// A pronoun with antecedent words {0, 2}, a mention without a token, a proper name with {3}.
std::vector<ScoredMention> handMade() {
    ScoredMention pronoun{0, MentionGroup::Pronoun, 5, {0, 2}, {true, false, true}};
    ScoredMention missing{1, MentionGroup::Nominal, -1, {1}, {true, true, true}};
    ScoredMention proper{2, MentionGroup::Proper, 7, {3}, {false, false, false}};
    return {pronoun, missing, proper};
}

TEST(CorefAccumulator, CountsPredictionsAndBaselinesPerGroup) {
    CorefAccumulator acc(1, 2);
    acc.addWindow(handMade(), {{2, 0, kNoPrediction}, {1, 0, 3}});
    const HeadId h0{0, 0};
    const HeadId h1{0, 1};
    EXPECT_EQ(acc.counts.windows, 1);
    EXPECT_EQ(acc.counts.scoredMentions, 2);
    EXPECT_EQ(acc.counts.mentionsWithoutToken, 1);
    EXPECT_EQ(acc.scored(MentionGroup::All), 2);
    EXPECT_EQ(acc.scored(MentionGroup::Pronoun), 1);
    EXPECT_EQ(acc.scored(MentionGroup::Proper), 1);
    EXPECT_EQ(acc.scored(MentionGroup::Nominal), 0);
    const Counts a0 = acc.at(h0, MentionGroup::All);
    EXPECT_EQ(a0.total, 2);
    EXPECT_EQ(a0.noPrediction, 1);  // counted apart
    EXPECT_EQ(a0.correct, 1);
    EXPECT_EQ(acc.at(h0, MentionGroup::Proper).noPrediction, 1);
    EXPECT_EQ(acc.at(h1, MentionGroup::All).correct, 1);      // 3 for the name
    EXPECT_EQ(acc.at(h1, MentionGroup::Pronoun).correct, 0);  // 1 is no antecedent
    EXPECT_EQ(acc.at(h1, MentionGroup::Nominal).total, 0);
    EXPECT_EQ(acc.baselineCorrect(CorefBaseline::Nearest, MentionGroup::All), 1);
    EXPECT_EQ(acc.baselineCorrect(CorefBaseline::HeadMatch, MentionGroup::All), 0);
    EXPECT_EQ(acc.baselineCorrect(CorefBaseline::Sieve, MentionGroup::Pronoun), 1);
    EXPECT_EQ(acc.baselineCorrect(CorefBaseline::Sieve, MentionGroup::Proper), 0);
    // Head 0: 1 of 1 predicted; head 1: 1 of 2. Proper: head 0 predicted nothing.
    EXPECT_EQ(acc.bestHead(MentionGroup::All), h0);
    EXPECT_EQ(acc.bestHead(MentionGroup::Proper), h1);
    EXPECT_EQ(acc.bestHead(MentionGroup::Nominal), std::nullopt);

    testing::expectError<InvalidArgument>(
        [&] {
            acc.addWindow(handMade(), {{1, 2, 3}});
        },
        {"1 heads' predictions", "1 layers x 2 heads"});
    testing::expectError<InvalidArgument>(
        [&] {
            (void)acc.at({1, 0}, MentionGroup::All);
        },
        {"head 1-0"});
}

TEST(CorefAccumulator, BestHeadTiesGoToTheLowestLayerThenHead) {
    CorefAccumulator acc(2, 2);
    // Every head right on the pronoun: all tie.
    acc.addWindow({handMade()[0]}, {{0}, {2}, {0}, {2}});
    EXPECT_EQ(acc.bestHead(MentionGroup::All), (HeadId{0, 0}));
    acc.addWindow({handMade()[0]}, {{1}, {1}, {1}, {0}});
    EXPECT_EQ(acc.bestHead(MentionGroup::All), (HeadId{1, 1}));
}

TEST(CorefAccumulator, MergeAddsEveryCount) {
    CorefAccumulator one(1, 2);
    one.addWindow(handMade(), {{2, 0, kNoPrediction}, {1, 0, 3}});
    CorefAccumulator merged;
    merged.counts.documents = 3;
    merged.merge(one);
    merged.merge(one);
    EXPECT_EQ(merged.layers(), 1);
    EXPECT_EQ(merged.counts.documents, 3);
    EXPECT_EQ(merged.counts.windows, 2);
    EXPECT_EQ(merged.counts.mentionsWithoutToken, 2);
    EXPECT_EQ(merged.scored(MentionGroup::Proper), 2);
    EXPECT_EQ(merged.at({0, 0}, MentionGroup::All).noPrediction, 2);
    EXPECT_EQ(merged.at({0, 1}, MentionGroup::All).correct, 2);
    EXPECT_EQ(merged.baselineCorrect(CorefBaseline::Sieve, MentionGroup::All), 2);
    merged.merge(CorefAccumulator());
    EXPECT_EQ(merged.counts.windows, 2);
    testing::expectError<InvalidArgument>([&] { merged.merge(CorefAccumulator(2, 2)); },
                                          {"merging 2 layers x 2 heads into 1 layers x 2 heads"});
}

}  // namespace
}  // namespace attnscope::analysis
