// Coreference scoring end to end on a generated checkpoint (FIXTURES checkpoints) and on the
// real GUM dev file when ../shared has it (issue 16). The attention is random, so the checks
// are the bookkeeping: shares do not change counts, and the counts add up.
#include <atomic>
#include <chrono>

#include <gtest/gtest.h>

#include "../support/executors.h"
#include "attnscope/analysis/coref_scoring.h"
#include "attnscope/model/model.h"
#include "coref_test_support.h"

namespace attnscope::analysis {
namespace {

using coreftest::line;

constexpr std::array<MentionGroup, 4> kGroups = {MentionGroup::All, MentionGroup::Pronoun,
                                                 MentionGroup::Proper, MentionGroup::Nominal};
constexpr std::array<CorefBaseline, 3> kBaselines = {
    CorefBaseline::Nearest, CorefBaseline::HeadMatch, CorefBaseline::Sieve};

// A short story, repeated so that several windows of the fixture's 40 positions have scored
// mentions. The soft hyphen (U+00AD, a format character BERT drops) is a word without a token:
// the mention on it is no antecedent, so "it" after it is counted as without token.
std::string story(int copies) {
    std::string out;
    for (int i = 0; i < copies; ++i) {
        out += "# newdoc id = doc" + std::to_string(i) + "\n";
        out += line(1, "Kim", "Kim", "PROPN", "", 2, "Entity=(1)") +
               line(2, "saw", "see", "VERB", "", 0, "") +
               line(3, "her", "she", "PRON", "Number=Sing", 4, "Entity=(2(1)") +
               line(4, "dog", "dog", "NOUN", "Number=Sing", 2, "Entity=2)") +
               line(5, ".", ".", "PUNCT", "", 2, "") + "\n";
        out += line(1, "She", "she", "PRON", "Number=Sing", 2, "Entity=(1)") +
               line(2, "fed", "feed", "VERB", "", 0, "") +
               line(3, "the", "the", "DET", "", 4, "Entity=(2") +
               line(4, "dog", "dog", "NOUN", "Number=Sing", 2, "Entity=2)") +
               line(5, ".", ".", "PUNCT", "", 2, "") + "\n";
        out += line(1, "\xC2\xAD", "\xC2\xAD", "SYM", "", 2, "Entity=(9)") +
               line(2, "it", "it", "PRON", "", 3, "Entity=(9)") +
               line(3, "left", "leave", "VERB", "", 0, "") + "\n";
    }
    return out;
}

void expectSameCounts(const CorefAccumulator& a, const CorefAccumulator& b) {
    const CorefCounts& x = a.counts;
    const CorefCounts& y = b.counts;
    EXPECT_EQ(std::tuple(x.documents, x.sentences, x.windows, x.sentencesSkipped, x.mentions,
                         x.scoredMentions, x.mentionsWithoutToken, x.discontinuous, x.unclosed,
                         x.unmatched, x.malformedSentences),
              std::tuple(y.documents, y.sentences, y.windows, y.sentencesSkipped, y.mentions,
                         y.scoredMentions, y.mentionsWithoutToken, y.discontinuous, y.unclosed,
                         y.unmatched, y.malformedSentences));
    for (MentionGroup g : kGroups) {
        EXPECT_EQ(a.scored(g), b.scored(g));
        for (CorefBaseline base : kBaselines) {
            EXPECT_EQ(a.baselineCorrect(base, g), b.baselineCorrect(base, g));
        }
        for (int layer = 0; layer < a.layers(); ++layer) {
            for (int head = 0; head < a.heads(); ++head) {
                const Counts& p = a.at({layer, head}, g);
                const Counts& q = b.at({layer, head}, g);
                EXPECT_EQ(std::tuple(p.correct, p.noPrediction, p.total),
                          std::tuple(q.correct, q.noPrediction, q.total));
            }
        }
    }
}

// Every head counts every scored mention; groups add up; correct <= predicted.
void expectConsistent(const CorefAccumulator& acc) {
    const CorefCounts& c = acc.counts;
    EXPECT_EQ(acc.scored(MentionGroup::All), c.scoredMentions);
    EXPECT_EQ(acc.scored(MentionGroup::Pronoun) + acc.scored(MentionGroup::Proper) +
                  acc.scored(MentionGroup::Nominal),
              c.scoredMentions);
    for (CorefBaseline base : kBaselines) {
        EXPECT_LE(acc.baselineCorrect(base, MentionGroup::All), c.scoredMentions);
    }
    for (int layer = 0; layer < acc.layers(); ++layer) {
        for (int head = 0; head < acc.heads(); ++head) {
            std::int64_t total = 0;
            std::int64_t correct = 0;
            for (MentionGroup g :
                 {MentionGroup::Pronoun, MentionGroup::Proper, MentionGroup::Nominal}) {
                const Counts& k = acc.at({layer, head}, g);
                EXPECT_EQ(k.total, acc.scored(g));
                EXPECT_LE(k.correct, k.predicted());
                total += k.total;
                correct += k.correct;
            }
            EXPECT_EQ(acc.at({layer, head}, MentionGroup::All).total, total);
            EXPECT_EQ(acc.at({layer, head}, MentionGroup::All).correct, correct);
        }
    }
}

TEST(CorefModel, SharesGiveTheSameCountsAndTheCountsAddUp) {
    const auto model =
        model::loadModel(std::filesystem::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints" / "bert_f32");
    testing::ScratchDir dir;
    const CorefCorpus corpus = coreftest::readCorpus(dir, story(3));
    const CorefScoreOptions options;
    ASSERT_EQ(windowLimit(*model, options), 40u);
    CorefScoreOptions small;
    small.maxTokens = 12;
    EXPECT_EQ(windowLimit(*model, small), 12u);
    const CorefWindows windows = cutWindows(*model, corpus, options);
    ASSERT_GE(windows.windows.size(), 3u);
    std::int64_t candidates = 0;
    for (const CorefWindow& w : windows.windows) {
        candidates += static_cast<std::int64_t>(scoredMentions(corpus, w).size());
        EXPECT_LE(model->tokenizer->encode(windowText(corpus, w).text).size(), 40u);
    }

    std::atomic<int> done = 0;
    std::atomic<int> dumped = 0;
    CorefShares how;
    how.windowDone = [&] { ++done; };
    how.scored = [&](std::size_t, std::size_t, const std::string&, const auto&, const auto&) {
        ++dumped;
    };
    const CorefAccumulator one =
        scoreCoref(*model, corpus, windows, options, how, testing::runOnThreads);
    EXPECT_EQ(done.load(), static_cast<int>(windows.windows.size()));
    EXPECT_GT(dumped.load(), 0);
    how.shares = 3;
    const CorefAccumulator three =
        scoreCoref(*model, corpus, windows, options, how, testing::runOnThreads);
    expectSameCounts(one, three);
    expectConsistent(one);

    const CorefCounts& c = one.counts;
    EXPECT_EQ(c.documents, 3);
    EXPECT_EQ(c.sentences, 9);
    EXPECT_EQ(c.windows, static_cast<std::int64_t>(windows.windows.size()));
    EXPECT_EQ(c.mentions, 21);  // 7 per document
    EXPECT_EQ(c.scoredMentions + c.mentionsWithoutToken, candidates);
    EXPECT_EQ(c.mentionsWithoutToken, 3);  // "it" after the soft hyphen, once per document
    EXPECT_GT(c.scoredMentions, 0);

    CorefShares cancelled;
    cancelled.cancel.cancel();
    EXPECT_THROW(scoreCoref(*model, corpus, windows, options, cancelled, testing::runOnThreads),
                 Cancelled);
}

const std::filesystem::path kGumDev =
    std::filesystem::path(ATTNSCOPE_SHARED_DIR) / "data/ud/UD_English-GUM/en_gum-ud-dev.conllu";

TEST(CorefRealData, GumDevReadsAndScoresInSeconds) {
    if (!std::filesystem::exists(kGumDev)) {
        GTEST_SKIP() << "shared treebank not found at " << kGumDev.string();
    }
    const CorefCorpus corpus = CorefCorpus::read(kGumDev.string());
    EXPECT_EQ(corpus.coref.documents.size(), 30u);
    EXPECT_EQ(corpus.coref.mentions.size(), 7897u);
    EXPECT_EQ(corpus.coref.discontinuous + corpus.coref.unclosed + corpus.coref.unmatched +
                  corpus.coref.malformedSentences,
              0);
    const auto dir = std::filesystem::path(ATTNSCOPE_FIXTURE_DIR) / "deps" / "gpt2_bytelevel";
    if (!std::filesystem::exists(dir / "config.json")) {
        GTEST_SKIP() << "GPT-2 vocabulary checkpoint not generated at " << dir.string()
                     << " (reference.deps_checkpoints)";
    }
    const auto model = model::loadModel(dir);
    CorefScoreOptions options;
    options.maxTokens = 128;
    const auto start = std::chrono::steady_clock::now();
    const CorefWindows windows = cutWindows(*model, corpus, options);
    CorefShares how;
    how.shares = 2;
    const CorefAccumulator acc =
        scoreCoref(*model, corpus, windows, options, how, testing::runOnThreads);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << "GUM dev: " << windows.windows.size() << " windows, "
              << acc.counts.sentencesSkipped << " sentences skipped, " << acc.counts.scoredMentions
              << " scored mentions, " << acc.counts.mentionsWithoutToken << " without a token, "
              << seconds << " s\n";
    EXPECT_GT(windows.windows.size(), 250u);
    EXPECT_LT(seconds, 60.0);
    expectConsistent(acc);
}

}  // namespace
}  // namespace attnscope::analysis
