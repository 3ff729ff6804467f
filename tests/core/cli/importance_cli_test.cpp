// attnscope-cli importance end to end (issue 17): the summary and the CSV on a sentence file
// (with the masked positions the loss used, issue 30), the HDF5 file for key/value groups and
// for a masked LM, usage and data errors, an unwritable --out refused before any work, and
// Ctrl+C.
#include <algorithm>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "../support/cli_corpus.h"
#include "../support/h5_reader.h"
#include "../support/run_command.h"
#include "../support/shared_data.h"
#include "../support/test_files.h"
#include "attnscope/analysis/head_importance.h"
#include "attnscope/model/model.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";
using testing::kEwtDev;

constexpr const char* kSentences =
    "the cat sat on the mat and looked at the door\n"
    "\n"
    "a dog ran to the park\n"
    "she said that it was late\n";

TEST(ImportanceCli, WritesTheTableAndPrintsTheSummary) {
    const testing::CorpusDir tmp(kSentences);
    const fs::path csv = tmp.path() / "importance.csv";
    const testing::CommandRun run = testing::runOn("importance", kCheckpoints / "bert_f32",
                                                   tmp.corpus(), " --seed 3 --threads 2", csv);
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(testing::contains(
        run.out, "objective: masked LM, 15 % masked (seed 3); ablation zero per head"))
        << run.out;
    EXPECT_TRUE(testing::contains(run.out, ": 3 sentences, 3 scored, 0 without a target"))
        << run.out;
    EXPECT_TRUE(testing::contains(run.out, "clean loss ")) << run.out;
    EXPECT_TRUE(testing::contains(run.out, "most important heads")) << run.out;
    EXPECT_TRUE(testing::contains(run.out, "least important heads")) << run.out;
    EXPECT_TRUE(testing::contains(run.out, "      1.00        6  "))
        << run.out;  // every head at 100 %
    const std::string table = testing::readFile(csv);
    EXPECT_EQ(table.rfind("record,layer,head,group,delta_loss,ablated_loss,ablated_accuracy,rank,"
                          "fraction,removed,loss,accuracy,sentence,position,target_id\n",
                          0),
              0u)
        << table;
    // The masked targets the loss used: the corpus's own rule with seed 3, by source sentence
    // (the blank line is no sentence).
    const auto model = model::loadModel(kCheckpoints / "bert_f32");
    analysis::ImportanceOptions options;
    options.seed = 3;
    const analysis::ImportanceCorpus items =
        analysis::importanceCorpus(*model,
                                   {"the cat sat on the mat and looked at the door",
                                    "a dog ran to the park", "she said that it was late"},
                                   options);
    std::string masked;
    std::size_t targets = 0;
    for (std::size_t i = 0; i < items.items.size(); ++i) {
        for (const auto& [position, id] : items.items[i].targets) {
            masked += "\nmasked,,,,,,,,,,,," + std::to_string(items.sentenceOf[i]) + "," +
                      std::to_string(position) + "," + std::to_string(id);
            ++targets;
        }
    }
    EXPECT_GE(targets, 3u);
    EXPECT_TRUE(testing::contains(table, masked + "\n")) << table << "\nwanted" << masked;
    // bert_f32 has 2 layers x 3 heads; 11 pruning points; then the targets.
    EXPECT_EQ(std::count(table.begin(), table.end(), '\n'),
              static_cast<std::ptrdiff_t>(1 + 6 + 11 + targets))
        << table;
    EXPECT_TRUE(testing::contains(table, "\nunit,1,2,,")) << table;
    EXPECT_TRUE(testing::contains(table, "\npruning,,,,,,,,0.5,3,")) << table;
    EXPECT_TRUE(testing::contains(run.err, "wrote")) << run.err;
}

TEST(ImportanceCli, WritesKeyValueGroupsToHdf5) {
    const testing::CorpusDir tmp(kSentences);
    const fs::path h5 = tmp.path() / "importance.h5";
    const testing::CommandRun run =
        testing::runOn("importance", kCheckpoints / "llama3_gqa4_f32", tmp.corpus(),
                       " --kind mean --kv-group --max-sentences 2 --threads 1", h5);
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(fs::is_regular_file(h5));
    EXPECT_TRUE(
        testing::contains(run.out, "objective: causal LM, next token; ablation mean per kv group"))
        << run.out;
    EXPECT_TRUE(testing::contains(run.out, ": 2 sentences, 2 scored")) << run.out;
    EXPECT_TRUE(testing::contains(run.out, "most important kv groups")) << run.out;
    EXPECT_TRUE(testing::contains(run.out, "  1-g1 ")) << run.out;
    // A causal LM masks nothing: every token predicts the next.
    const testing::H5Reader f(h5);
    EXPECT_TRUE(f.exists("delta_loss"));
    EXPECT_FALSE(f.exists("masked"));
}

TEST(ImportanceCli, Hdf5OfAMaskedLmListsItsMaskedTargets) {
    const testing::CorpusDir tmp(kSentences);
    const fs::path h5 = tmp.path() / "importance.h5";
    const testing::CommandRun run =
        testing::runOn("importance", kCheckpoints / "bert_f32", tmp.corpus(), " --threads 1", h5);
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const testing::H5Reader f(h5);
    const auto sentence = f.values<std::int64_t>("masked/sentence", H5T_NATIVE_INT64);
    const auto position = f.values<std::int64_t>("masked/position", H5T_NATIVE_INT64);
    const auto target = f.values<std::int64_t>("masked/target_id", H5T_NATIVE_INT64);
    EXPECT_EQ(static_cast<std::int64_t>(sentence.size()),
              f.number<std::int64_t>("targets", H5T_NATIVE_INT64));
    ASSERT_EQ(position.size(), sentence.size());
    ASSERT_EQ(target.size(), sentence.size());
    const auto model = model::loadModel(kCheckpoints / "bert_f32");
    const std::vector<std::string> lines = {"the cat sat on the mat and looked at the door",
                                            "a dog ran to the park", "she said that it was late"};
    for (std::size_t k = 0; k < sentence.size(); ++k) {
        ASSERT_LT(sentence[k], 3);
        const auto tokens = model->tokenizer->encode(lines[static_cast<std::size_t>(sentence[k])]);
        ASSERT_LT(position[k], static_cast<std::int64_t>(tokens.size()));
        // The target is the sentence's own token at that position.
        EXPECT_EQ(target[k], tokens[static_cast<std::size_t>(position[k])].id) << k;
    }
}

TEST(ImportanceCli, UsageAndDataErrors) {
    const testing::CorpusDir tmp(kSentences);
    const std::string base =
        testing::modelCommand("importance", kCheckpoints / "bert_f32", tmp.corpus());
    EXPECT_EQ(testing::runCli("importance --help").exitCode, 0);
    for (const std::string& bad :
         {std::string(" --out x.txt"), std::string(" --kind half --out x.csv"),
          std::string(" --mask-fraction 0 --out x.csv"),
          std::string(" --mask-fraction 1.5 --out x.csv"), std::string(" --threads 0 --out x.csv"),
          std::string(" --max-sentences 0 --out x.csv")}) {
        EXPECT_EQ(testing::runCli(base + bad).exitCode, 2) << bad;
    }
    const fs::path out = tmp.path() / "never.csv";
    // No prediction head: one line naming the folder, nothing written.
    const fs::path bare = kCheckpoints / "bert_noprefix_f16";
    const testing::CommandRun noHead = testing::runOn("importance", bare, tmp.corpus(), "", out);
    EXPECT_EQ(noHead.exitCode, 1);
    EXPECT_TRUE(
        testing::contains(noHead.err, bare.string() + ": the checkpoint has no prediction head"))
        << noHead.err;
    // Nothing to predict: single tokens of a causal LM.
    const fs::path lonely = tmp.path() / "lonely.txt";
    testing::writeFile(lonely, "a\n\nb\n");
    const testing::CommandRun none =
        testing::runOn("importance", kCheckpoints / "gpt2_f32", lonely, "", out);
    EXPECT_EQ(none.exitCode, 1);
    EXPECT_TRUE(testing::contains(none.err, lonely.string() + ": no sentence has a target"))
        << none.err;
    const testing::CommandRun missing =
        testing::runOn("importance", kCheckpoints / "bert_f32", tmp.path() / "absent.txt", "", out);
    EXPECT_EQ(missing.exitCode, 1);
    EXPECT_TRUE(testing::contains(missing.err, "absent.txt")) << missing.err;
    EXPECT_FALSE(fs::exists(out));
    // An --out that cannot be written is refused before the corpus is read or a pass runs.
    const fs::path nowhere = tmp.path() / "no" / "such" / "importance.csv";
    const testing::CommandRun unwritable =
        testing::runCli(base + " --out " + testing::shellQuoted(nowhere));
    EXPECT_EQ(unwritable.exitCode, 1);
    EXPECT_TRUE(testing::contains(unwritable.err, "--out: " + nowhere.string() + ": cannot write"))
        << unwritable.err;
    EXPECT_FALSE(testing::contains(unwritable.err, "Ctrl+C stops")) << unwritable.err;
}

// Ctrl+C stops a run between passes: exit code 130, one line, no output file.
TEST(ImportanceCli, InterruptWritesNothing) {
    ATTNSCOPE_SKIP_WITHOUT(kEwtDev);
    // Interrupt once the passes have started.
    testing::expectInterruptWritesNothing(
        testing::modelCommand("importance", kCheckpoints / "gpt2_sharded_bf16", kEwtDev) +
            " --threads 2",
        "ewt.h5", "Ctrl+C stops");
}

}  // namespace
}  // namespace attnscope
