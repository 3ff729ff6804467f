// attnscope-cli survey end to end (issue 18): the CSV and the summary on BERT, the HDF5 file on
// GPT-2 holding exactly what surveyCorpus computes for the same ids and options, sentences too
// long for the model's positions, usage and data errors, and Ctrl+C.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <hdf5.h>

#include "../support/cli_corpus.h"
#include "../support/executors.h"
#include "../support/h5_reader.h"
#include "../support/run_command.h"
#include "../support/shared_data.h"
#include "../support/test_files.h"
#include "attnscope/analysis/head_survey.h"
#include "attnscope/model/model.h"
#include "attnscope/text/sentence_file.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;
using testing::H5Reader;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";
using testing::kEwtDev;

constexpr const char* kSentences =
    "the cat sat on the mat, and looked at the door.\n"
    "\n"
    "a dog ran to the park.\n"
    "she said that it was late!\n";

std::vector<std::int32_t> ids(const H5Reader& h5, const char* name) {
    const std::vector<std::int64_t> v = h5.values<std::int64_t>(name, H5T_NATIVE_INT64);
    return {v.begin(), v.end()};
}

TEST(SurveyCli, WritesTheTableAndPrintsTheSummary) {
    const testing::CorpusDir tmp(kSentences);
    const fs::path csv = tmp.path() / "survey.csv";
    const testing::CommandRun run =
        testing::runOn("survey", kCheckpoints / "bert_f32", tmp.corpus(), "", csv);
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(testing::contains(run.out,
                                  ": 3 sentences, 3 surveyed, 0 longer than the model's positions"))
        << run.out;
    // The tokenizer's declared special tokens ([PAD], [UNK], [CLS], [SEP], [MASK]); Clark's
    // punctuation "," and "." (issue 30).
    EXPECT_TRUE(testing::contains(run.out, "ids: 5 special, 2 punctuation, 1 period")) << run.out;
    EXPECT_TRUE(testing::contains(run.out, "per layer, mean over heads:")) << run.out;
    EXPECT_TRUE(testing::contains(run.out, "  induction (tl_induction_mul):"))
        << run.out;  // no probe on BERT
    EXPECT_TRUE(testing::contains(run.out, "  sink, fraction of sentences (sink_rate):"))
        << run.out;
    // Three sentences hold far fewer than 500 distinct ids: no rare word, and the summary says why.
    EXPECT_TRUE(testing::contains(run.out, "  rare word (rare_top1): undefined: the corpus has "))
        << run.out;
    EXPECT_TRUE(
        testing::contains(run.out, " distinct ids, not more than rare-top 500, so every token"))
        << run.out;
    EXPECT_FALSE(fs::exists(tmp.path() / "survey.probe.csv"));  // no probe on BERT
    EXPECT_TRUE(testing::contains(run.out, "  positional (positional_frequency):")) << run.out;
    const std::string table = testing::readFile(csv);
    EXPECT_EQ(table.rfind("layer,head,first,last,self,prev,", 0), 0u) << table;
    EXPECT_TRUE(testing::contains(table, ",positional,confidence,rare_top1,rare_top2,labels\n"))
        << table;
    EXPECT_TRUE(testing::contains(run.out, "labels (rules L1-L10; ")) << run.out;
    EXPECT_FALSE(testing::contains(table, "dep_relation")) << table;  // sentences, not a treebank
    // bert_f32 has 2 layers x 3 heads; the probe is NaN on a bidirectional model.
    EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 1 + 6) << table;
    EXPECT_TRUE(testing::contains(table, "\n1,2,")) << table;
    EXPECT_TRUE(testing::contains(table, ",nan,")) << table;
    EXPECT_TRUE(testing::contains(run.err, "wrote")) << run.err;
}

// The file holds surveyCorpus's own result for the same sentences and the options it records.
TEST(SurveyCli, Hdf5EqualsTheSurveyComputedDirectly) {
    const testing::CorpusDir tmp(kSentences);
    const fs::path h5path = tmp.path() / "survey.h5";
    const fs::path dir = kCheckpoints / "gpt2_f32";
    const testing::CommandRun run =
        testing::runOn("survey", dir, tmp.corpus(),
                       " --threads 1 --probe-repeats 2 --probe-length 4 --probe-seed 9"
                       " --sink-eps 0.25 --rare-top 3 --positional-threshold 0.5",
                       h5path);
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(testing::contains(run.out, "  induction (probe_induction):")) << run.out;
    const H5Reader h5(h5path);
    ASSERT_TRUE(h5.ok());
    const auto model = model::loadModel(dir);
    analysis::SurveyOptions options;
    options.specialIds = ids(h5, "options/special_ids");
    options.punctIds = ids(h5, "options/punct_ids");
    options.periodIds = ids(h5, "options/period_ids");
    // The vocabulary rule: "," is punctuation, "." the period, "the" neither.
    const auto idOf = [&model](const char* piece) { return *model->tokenizer->tokenToId(piece); };
    EXPECT_NE(std::find(options.punctIds.begin(), options.punctIds.end(), idOf(",")),
              options.punctIds.end());
    EXPECT_EQ(options.periodIds, std::vector<std::int32_t>{idOf(".")});
    EXPECT_EQ(std::find(options.punctIds.begin(), options.punctIds.end(), idOf("the")),
              options.punctIds.end());
    options.sinkEps = 0.25;
    options.rareTop = 3;
    options.positionalThreshold = 0.5;
    options.probeRepeats = 2;
    options.probeLength = 4;
    options.probeSeed = 9;
    std::vector<std::vector<std::int32_t>> sentences;
    for (const std::string& line : text::readSentences(tmp.corpus())) {
        sentences.push_back(tokenize::ids(model->tokenizer->encode(line)));
    }
    const analysis::HeadSurvey expected =
        analysis::surveyCorpus(*model, sentences, options, testing::runInline);
    for (const std::string& name : analysis::surveyScoreNames()) {
        const std::vector<double> got =
            h5.values<double>(("scores/" + name).c_str(), H5T_NATIVE_DOUBLE);
        const std::vector<double>& want = expected.score(name);
        ASSERT_EQ(got.size(), want.size()) << name;
        for (std::size_t k = 0; k < got.size(); ++k) {
            EXPECT_TRUE(got[k] == want[k] || (std::isnan(got[k]) && std::isnan(want[k])))
                << name << " head " << k << ": " << got[k] << " vs " << want[k];
        }
    }
    EXPECT_EQ(h5.values<double>("distance", H5T_NATIVE_DOUBLE), expected.distance);
    EXPECT_EQ(h5.values<double>("mds", H5T_NATIVE_DOUBLE), expected.mds);
    std::vector<std::int64_t> drawn;
    for (const auto& seq : expected.probeSequences) {
        drawn.insert(drawn.end(), seq.begin(), seq.end());
    }
    EXPECT_EQ(h5.dims("probe/tokens"), (std::vector<hsize_t>{2, 9}));
    EXPECT_EQ(h5.values<std::int64_t>("probe/tokens", H5T_NATIVE_INT64), drawn);
    EXPECT_EQ(h5.number<std::int64_t>("rare_sentences", H5T_NATIVE_INT64),
              static_cast<std::int64_t>(expected.rareSentences));
    EXPECT_TRUE(testing::contains(run.out, "probe: 2 sequences of 9 ids (seed 9), the first: "))
        << run.out;
    EXPECT_EQ(h5.number<std::int64_t>("sentences", H5T_NATIVE_INT64), 3);
    EXPECT_EQ(h5.number<std::int64_t>("too_long", H5T_NATIVE_INT64), 0);
    EXPECT_EQ(h5.number<std::int64_t>("probe_length", H5T_NATIVE_INT64), 4);
    EXPECT_EQ(h5.text("model"), dir.string());
}

// A treebank corpus: the same passes give each head its best dependency relation, equal to the
// dependency scoring of those sentences, and the labels and relations go into the file.
TEST(SurveyCli, TreebankCorpusAddsTheBestDependencyRelation) {
    testing::ScratchDir tmp;
    const fs::path corpus = tmp.path() / "tiny.conllu";
    std::string conllu;
    for (int copy = 0; copy < 60; ++copy) {  // 120 det and nsubj words: over the 100-word bar
        conllu +=
            "# text = the cat sat\n"
            "1\tthe\tthe\tDET\t_\t_\t2\tdet\t_\t_\n"
            "2\tcat\tcat\tNOUN\t_\t_\t3\tnsubj\t_\t_\n"
            "3\tsat\tsit\tVERB\t_\t_\t0\troot\t_\t_\n\n"
            "# text = a dog ran\n"
            "1\ta\ta\tDET\t_\t_\t2\tdet\t_\t_\n"
            "2\tdog\tdog\tNOUN\t_\t_\t3\tnsubj\t_\t_\n"
            "3\tran\trun\tVERB\t_\t_\t0\troot\t_\t_\n\n";
    }
    testing::writeFile(corpus, conllu);
    const fs::path csv = tmp.path() / "survey.csv";
    const fs::path h5path = tmp.path() / "survey.h5";
    const std::string base = testing::modelCommand("survey", kCheckpoints / "bert_f32", corpus);
    const testing::CommandRun run =
        testing::runCli(base + " --threads 2 --out " + testing::shellQuoted(csv));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(testing::contains(
        run.out, "dependency relations: 120 sentences scored, 0 skipped; 2 relations"))
        << run.out;
    const std::string table = testing::readFile(csv);
    EXPECT_TRUE(testing::contains(
        table, ",labels,dep_relation,dep_accuracy,dep_baseline,dep_baseline_offset\n"))
        << table;
    // Each row names its best relation, whose baseline is perfect: det heads are one word to the
    // right (offset 1); nsubj heads are the last word, which offset 2 reaches too once clamped to
    // the sentence, and equal accuracies go to the larger offset.
    std::istringstream lines(table);
    std::string line;
    std::getline(lines, line);  // header
    int rows = 0;
    while (std::getline(lines, line)) {
        ++rows;
        std::vector<std::string> cells;
        std::istringstream fields(line);
        for (std::string cell; std::getline(fields, cell, ',');) {
            cells.push_back(cell);
        }
        ASSERT_GE(cells.size(), 4u);
        const std::string& relation = cells[cells.size() - 4];
        EXPECT_TRUE(relation == "det" || relation == "nsubj") << line;
        EXPECT_EQ(cells[cells.size() - 2], "1") << line;
        EXPECT_EQ(cells.back(), relation == "det" ? "1" : "2") << line;
    }
    EXPECT_EQ(rows, 6);
    ASSERT_EQ(testing::runCli(base + " --threads 1 --out " + testing::shellQuoted(h5path)).exitCode,
              0);
    const H5Reader h5(h5path);
    ASSERT_TRUE(h5.ok());
    const auto accuracy = h5.values<double>("dependency/accuracy", H5T_NATIVE_DOUBLE);
    ASSERT_EQ(accuracy.size(), 6u);
    for (const double a : accuracy) {
        EXPECT_TRUE(a >= 0.0 && a <= 1.0) << a;
    }
    EXPECT_EQ(h5.values<double>("dependency/baseline", H5T_NATIVE_DOUBLE),
              std::vector<double>(6, 1.0));
}

// gpt2_f32 has 21 positions: a longer sentence is left out and counted; none left is an error.
TEST(SurveyCli, LeavesOutSentencesTooLongForTheModel) {
    testing::ScratchDir tmp;
    std::string longLine;
    for (int k = 0; k < 30; ++k) {
        longLine.append("the cat ");
    }
    longLine.append("\n");
    const fs::path corpus = tmp.path() / "long.txt";
    testing::writeFile(corpus, longLine + kSentences);
    const fs::path csv = tmp.path() / "survey.csv";
    const fs::path model = kCheckpoints / "gpt2_f32";
    const testing::CommandRun run = testing::runOn("survey", model, corpus, "", csv);
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(testing::contains(run.out,
                                  ": 4 sentences, 3 surveyed, 1 longer than the model's positions"))
        << run.out;
    EXPECT_TRUE(testing::contains(run.err, "1 longer than the model's 21 positions left out"))
        << run.err;
    EXPECT_TRUE(testing::contains(testing::readFile(tmp.path() / "survey.probe.csv"),
                                  "repeat,position,id\n0,0,"));
    EXPECT_TRUE(testing::contains(run.err, "and the probe's sequences to ")) << run.err;
    const fs::path onlyLong = tmp.path() / "only_long.txt";
    testing::writeFile(onlyLong, longLine);
    const fs::path out = tmp.path() / "never.csv";
    const testing::CommandRun none = testing::runOn("survey", model, onlyLong, "", out);
    EXPECT_EQ(none.exitCode, 1);
    EXPECT_TRUE(testing::contains(none.err,
                                  onlyLong.string() + ": no sentence to survey (1 read, 1 longer"))
        << none.err;
    EXPECT_FALSE(fs::exists(out));
}

TEST(SurveyCli, UsageAndDataErrors) {
    const testing::CorpusDir tmp(kSentences);
    const std::string base =
        testing::modelCommand("survey", kCheckpoints / "bert_f32", tmp.corpus());
    EXPECT_EQ(testing::runCli("survey --help").exitCode, 0);
    for (const std::string& bad :
         {std::string(""), std::string(" --out x.txt"), std::string(" --threads 0 --out x.csv"),
          std::string(" --max-sentences 0 --out x.csv"),
          std::string(" --probe-length 1 --out x.csv"),
          std::string(" --probe-repeats -1 --out x.csv"), std::string(" --sink-eps 2 --out x.csv"),
          std::string(" --rare-top -1 --out x.csv"),
          std::string(" --positional-threshold 1.5 --out x.csv")}) {
        EXPECT_EQ(testing::runCli(base + bad).exitCode, 2) << bad;
    }
    const fs::path out = tmp.path() / "never.csv";
    const testing::CommandRun missing =
        testing::runOn("survey", kCheckpoints / "bert_f32", tmp.path() / "absent.txt", "", out);
    EXPECT_EQ(missing.exitCode, 1);
    EXPECT_TRUE(testing::contains(missing.err, "absent.txt")) << missing.err;
    const testing::CommandRun noModel =
        testing::runOn("survey", tmp.path() / "nomodel", tmp.corpus(), "", out);
    EXPECT_EQ(noModel.exitCode, 1);
    EXPECT_TRUE(testing::contains(noModel.err, "nomodel")) << noModel.err;
    EXPECT_FALSE(fs::exists(out));
}

// Ctrl+C stops a run between passes: exit code 130, one line, no output file.
TEST(SurveyCli, InterruptWritesNothing) {
    ATTNSCOPE_SKIP_WITHOUT(kEwtDev);
    testing::expectInterruptWritesNothing(
        testing::modelCommand("survey", kCheckpoints / "gpt2_sharded_bf16", kEwtDev) +
            " --threads 2",
        "ewt.h5", "Ctrl+C stops");
}

}  // namespace
}  // namespace attnscope
