// The survey's corpus and its dependency part (survey_corpus.h, issue 18): sentences tokenized
// and cut to the model's positions, the ids of S1/S4, the dependency counts of the survey's own
// passes equal to scoreTreebank's, and L10's inputs (dependencyLabels, bestRelations).
#include "attnscope/analysis/survey_corpus.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "../support/executors.h"
#include "../support/fixture_model.h"
#include "../support/test_files.h"
#include "attnscope/analysis/treebank_scoring.h"
#include "attnscope/base/error.h"
#include "attnscope/model/model.h"
#include "attnscope/text/conllu.h"

namespace attnscope::analysis {
namespace {

using testing::fixtureModel;

namespace fs = std::filesystem;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

constexpr auto inline_ = testing::runInline;
constexpr auto threads = testing::runOnThreads;

// Six sentences: trees with det/nsubj/obj/punct, one without a tree (HEAD "_"), one far too
// long for the fixtures' positions (gpt2_f32 21, bert_f32 40).
std::vector<text::Sentence> treebank(const testing::ScratchDir& tmp) {
    std::string conllu =
        "1\tThe\tthe\tDET\t_\t_\t2\tdet\t_\t_\n"
        "2\tcat\tcat\tNOUN\t_\t_\t3\tnsubj\t_\t_\n"
        "3\tsaw\tsee\tVERB\t_\t_\t0\troot\t_\t_\n"
        "4\tthe\tthe\tDET\t_\t_\t5\tdet\t_\t_\n"
        "5\tdog\tdog\tNOUN\t_\t_\t3\tobj\t_\tSpaceAfter=No\n"
        "6\t.\t.\tPUNCT\t_\t_\t3\tpunct\t_\t_\n\n"
        "1\tA\ta\tDET\t_\t_\t2\tdet\t_\t_\n"
        "2\tbird\tbird\tNOUN\t_\t_\t3\tnsubj\t_\t_\n"
        "3\tsang\tsing\tVERB\t_\t_\t0\troot\t_\t_\n\n"
        "1\tno\tno\tX\t_\t_\t_\t_\t_\t_\n"
        "2\ttree\ttree\tX\t_\t_\t_\t_\t_\t_\n\n"
        "1\tShe\tshe\tPRON\t_\t_\t2\tnsubj\t_\t_\n"
        "2\tate\teat\tVERB\t_\t_\t0\troot\t_\t_\n"
        "3\tthe\tthe\tDET\t_\t_\t4\tdet\t_\t_\n"
        "4\tcake\tcake\tNOUN\t_\t_\t2\tobj\t_\tSpaceAfter=No\n"
        "5\t!\t!\tPUNCT\t_\t_\t2\tpunct\t_\t_\n\n";
    for (int w = 1; w <= 60; ++w) {
        conllu += std::to_string(w) + "\tcat\tcat\tNOUN\t_\t_\t" + (w == 1 ? "0\troot" : "1\tdep") +
                  "\t_\t_\n";
    }
    conllu +=
        "\n1\tDogs\tdog\tNOUN\t_\t_\t2\tnsubj\t_\t_\n2\tbark\tbark\tVERB\t_\t_\t0\troot\t_\t_\n";
    const fs::path file = tmp.path() / "tiny.conllu";
    testing::writeFile(file, conllu);
    return text::readConllu(file).sentences;
}

void expectSameCounts(const DependencyAccumulator& a, const DependencyAccumulator& b) {
    ASSERT_EQ(a.relations(), b.relations());
    EXPECT_EQ(a.sentencesScored(), b.sentencesScored());
    EXPECT_EQ(a.sentencesSkipped(), b.sentencesSkipped());
    EXPECT_EQ(a.skipReasons(), b.skipReasons());
    for (const std::string& r : a.relations()) {
        for (int l = 0; l < a.nLayers(); ++l) {
            for (int h = 0; h < a.nHeads(); ++h) {
                for (const Direction d : {Direction::DepToHead, Direction::HeadToDep}) {
                    const Counts x = a.counts(r, {l, h}, d);
                    const Counts y = b.counts(r, {l, h}, d);
                    EXPECT_EQ(x.correct, y.correct) << r << " " << l << "-" << h;
                    EXPECT_EQ(x.noPrediction, y.noPrediction) << r << " " << l << "-" << h;
                }
            }
        }
        for (int offset = kMinOffset; offset <= kMaxOffset; ++offset) {
            EXPECT_EQ(a.baselineCounts(r, offset).correct, b.baselineCounts(r, offset).correct);
        }
    }
}

TEST(SurveyCorpus, TreebankPassesGiveTheDependencyScoringsCounts) {
    const testing::ScratchDir tmp;
    const auto sentences = treebank(tmp);
    ASSERT_EQ(sentences.size(), 6u);
    for (const char* name : {"gpt2_f32", "bert_f32"}) {
        SCOPED_TRACE(name);
        const auto m = fixtureModel(name);
        const SurveyCorpus corpus = surveyCorpusFromTreebank(*m, sentences);
        ASSERT_TRUE(corpus.hasTrees());
        EXPECT_EQ(corpus.read, 6u);
        EXPECT_EQ(corpus.tooLong, 1u);
        ASSERT_EQ(corpus.gold.size(), corpus.ids.size());
        EXPECT_TRUE(corpus.gold[2].words.empty());  // no tree: surveyed, not scored
        SurveyOptions options;
        addCorpusIds(*m, corpus, options);
        const SurveyRun one = runSurvey(*m, corpus, options, {}, inline_);
        options.shares = 2;
        const SurveyRun two = runSurvey(*m, corpus, options, {}, threads);
        ASSERT_TRUE(one.dependencies && two.dependencies);
        TreebankShares how;
        const DependencyAccumulator direct = scoreTreebank(*m, sentences, {}, how, inline_);
        expectSameCounts(*one.dependencies, direct);
        expectSameCounts(*two.dependencies, direct);
        EXPECT_EQ(one.survey.sentences, corpus.ids.size());
        EXPECT_EQ(one.survey.distance, surveyCorpus(*m, corpus.ids, options, threads).distance);
    }
}

TEST(SurveyCorpus, LinesAreTokenizedAndTooLongOnesCounted) {
    const auto m = fixtureModel("bert_f32");
    std::string longLine;
    for (int k = 0; k < 600; ++k) {
        longLine += "cat ";
    }
    const std::vector<std::string> lines = {"the cat sat.", longLine, "a dog ran!"};
    const SurveyCorpus corpus = surveyCorpusFromLines(*m, lines);
    EXPECT_FALSE(corpus.hasTrees());
    EXPECT_EQ(corpus.read, 3u);
    EXPECT_EQ(corpus.tooLong, 1u);
    ASSERT_EQ(corpus.ids.size(), 2u);
    EXPECT_EQ(corpus.ids[1], tokenize::ids(m->tokenizer->encode(lines[2])));
    const auto cls = *m->tokenizer->tokenToId("[CLS]");
    const auto sep = *m->tokenizer->tokenToId("[SEP]");
    EXPECT_EQ(corpus.specialIds,
              (std::vector<std::int32_t>{std::min(cls, sep), std::max(cls, sep)}));
    SurveyOptions options;
    addCorpusIds(*m, corpus, options);
    const auto period = *m->tokenizer->tokenToId(".");
    EXPECT_EQ(options.periodIds, std::vector<std::int32_t>{period});
    EXPECT_EQ(runSurvey(*m, corpus, options, {}, inline_).dependencies, std::nullopt);
}

// Issue 30: the survey's punctuation is Clark's ("." and ","), not BERT's class, which also holds
// "!" and symbols such as "$" and "="; its special ids are the tokenizer's declared ones, those
// the corpus never produced included.
TEST(SurveyCorpus, PunctuationIsClarksAndSpecialIdsAreTheTokenizers) {
    const auto bert = fixtureModel("bert_f32");
    const std::vector<std::string> lines = {"the cat sat."};
    SurveyOptions options;
    addCorpusIds(*bert, surveyCorpusFromLines(*bert, lines), options);
    const auto idOf = [&bert](const char* piece) { return *bert->tokenizer->tokenToId(piece); };
    EXPECT_EQ(options.punctIds, (std::vector<std::int32_t>{std::min(idOf(","), idOf(".")),
                                                           std::max(idOf(","), idOf("."))}));
    std::vector<std::int32_t> declared = {idOf("[PAD]"), idOf("[UNK]"), idOf("[CLS]"),
                                          idOf("[SEP]"), idOf("[MASK]")};
    std::sort(declared.begin(), declared.end());
    EXPECT_EQ(options.specialIds, declared);
    // GPT-2 adds nothing around the text, yet <|endoftext|> is special (its BOS, EOS and unk), so
    // the probe never draws it and S4's special mass counts it wherever it occurs.
    const auto gpt2 = fixtureModel("gpt2_f32");
    const SurveyCorpus plain = surveyCorpusFromLines(*gpt2, lines);
    EXPECT_TRUE(plain.specialIds.empty());
    SurveyOptions g;
    addCorpusIds(*gpt2, plain, g);
    EXPECT_EQ(g.specialIds,
              std::vector<std::int32_t>{*gpt2->tokenizer->tokenToId("<|endoftext|>")});
    EXPECT_EQ(g.periodIds, std::vector<std::int32_t>{*gpt2->tokenizer->tokenToId(".")});
    for (const char* notClark : {"!", "$", "="}) {
        if (const auto id = gpt2->tokenizer->tokenToId(notClark)) {
            EXPECT_EQ(std::find(g.punctIds.begin(), g.punctIds.end(), *id), g.punctIds.end())
                << notClark;
        }
    }
}

// readSurveyCorpus: the file's kind by its extension, the first N sentences, what the file held.
TEST(SurveyCorpus, ReadsAFileOrTakesTheKnownTreebank) {
    const testing::ScratchDir tmp;
    const auto sentences = treebank(tmp);  // writes tiny.conllu: 6 sentences
    const auto m = fixtureModel("bert_f32");
    const fs::path conllu = tmp.path() / "tiny.conllu";
    const SurveyCorpus first = readSurveyCorpus(*m, conllu, 2);
    EXPECT_TRUE(first.hasTrees());
    EXPECT_EQ(first.read, 2u);
    EXPECT_EQ(first.inFile, 6u);
    EXPECT_EQ(first.malformed, 0u);
    const SurveyCorpus known =
        readSurveyCorpus(*m, tmp.path() / "absent.conllu", 2, {}, &sentences);
    EXPECT_EQ(known.ids, first.ids);
    EXPECT_EQ(known.inFile, 6u);
    const SurveyCorpus all = readSurveyCorpus(*m, conllu, 0);
    EXPECT_EQ(all.read, 6u);
    EXPECT_EQ(all.tooLong, 1u);
    // A bad token line leaves its sentence out and is counted.
    const fs::path bad = tmp.path() / "bad.conllu";
    testing::writeFile(bad,
                       "1\tA\ta\tDET\t_\t_\t2\tdet\t_\t_\n2\tdog\tdog\tNOUN\t_\t_\t0\troot\t_\t_"
                       "\n\n1\tbroken line\n\n");
    const SurveyCorpus partial = readSurveyCorpus(*m, bad, 0);
    EXPECT_EQ(partial.inFile, 1u);
    EXPECT_EQ(partial.malformed, 1u);
    const fs::path text = tmp.path() / "lines.txt";
    testing::writeFile(text, "the cat sat.\n\na dog ran!\nshe ate.\n");
    const SurveyCorpus lines = readSurveyCorpus(*m, text, 2);
    EXPECT_FALSE(lines.hasTrees());
    EXPECT_EQ(lines.read, 2u);
    EXPECT_EQ(lines.inFile, 3u);
    EXPECT_EQ(lines.ids[1], tokenize::ids(m->tokenizer->encode("a dog ran!")));
}

TEST(SurveyCorpus, DependencyLabelsTakeEachHeadsBetterDirection) {
    // Hand-made predictions on 2 layers x 1 head: head 0-0 predicts every dependent's head
    // (dep -> head right), head 1-0 predicts nothing right in that direction but is right the
    // other way for "det".
    DependencyAccumulator acc(2, 1);
    GoldSentence g;
    g.words = {"the", "cat", "sat"};
    g.heads = {2, 3, 0};
    g.relations = {"det", "nsubj", "root"};
    g.wordSpans = {{0, 3}, {4, 7}, {8, 11}};
    // [heads * directions][words], 1-based predicted heads; index head * 2 + direction.
    // 0-0: dep->head right, head<-dep wrong; 1-0: dep->head wrong, head<-dep right for "the" (det)
    // only.
    const std::vector<std::vector<int>> predictions = {{2, 3, 1}, {1, 1, 1}, {3, 1, 1}, {2, 1, 1}};
    for (int i = 0; i < 100; ++i) {
        ASSERT_TRUE(acc.addPredictions(g, predictions).scored);
    }
    const DependencyLabels labels = dependencyLabels(acc);
    ASSERT_EQ(labels.relations.size(), 2u);  // det, nsubj; "all" and root left out
    for (const auto& r : labels.relations) {
        ASSERT_EQ(r.accuracy.size(), 2u);
        EXPECT_DOUBLE_EQ(r.baseline, acc.bestOffset(r.relation)->counts.accuracy());
        EXPECT_EQ(r.accuracy[0], 1.0) << r.relation;
        const double other =
            std::max(acc.counts(r.relation, {1, 0}, Direction::DepToHead).accuracy(),
                     acc.counts(r.relation, {1, 0}, Direction::HeadToDep).accuracy());
        EXPECT_EQ(r.accuracy[1], other) << r.relation;
        EXPECT_EQ(r.accuracy[1], r.relation == "det" ? 1.0 : 0.0) << r.relation;
    }
    EXPECT_TRUE(dependencyLabels(acc, 101).relations.empty());  // 100 words each: under the bar
}

TEST(SurveyCorpus, BestRelationIsTheLargestMarginFirstOnTies) {
    DependencyLabels d;
    d.nLayers = 1;
    d.nHeads = 3;
    d.relations = {{"det", 0.5, 1, {0.9, 0.6, kNaN}},
                   {"amod", 0.3, -1, {0.7, 0.8, kNaN}},
                   {"obj", kNaN, 0, {1.0, 1.0, kNaN}}};  // no baseline: never best
    const auto best = bestRelations(d);
    ASSERT_EQ(best.size(), 3u);
    EXPECT_EQ(best[0].relation, "det");  // 0.4 over its baseline, amod too: the first wins
    EXPECT_EQ(best[0].baselineOffset, 1);
    EXPECT_EQ(best[1].relation, "amod");
    EXPECT_DOUBLE_EQ(best[1].margin(), 0.5);
    EXPECT_TRUE(best[2].relation.empty());
    EXPECT_TRUE(std::isnan(best[2].accuracy));
}

TEST(SurveyCorpus, NoTokenizerIsAnError) {
    model::LoadOptions load;
    load.tokenizer = model::TokenizerLoading::VocabularyOnly;
    const auto m =
        model::loadModel(fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints" / "bert_f32", load);
    const std::vector<std::string> lines = {"a"};
    EXPECT_THROW(surveyCorpusFromLines(*m, lines), InvalidArgument);
}

}  // namespace
}  // namespace attnscope::analysis
