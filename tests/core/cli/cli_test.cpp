// attnscope-cli end to end: exit codes, help, and the HDF5 file checked by h5py against the
// PyTorch reference (tests/reference/compare_h5.py).
#include <filesystem>

#include <gtest/gtest.h>

#include "../support/reference_file.h"
#include "../support/run_command.h"
#include "../support/test_files.h"
#include "../support/test_names.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

using CliRun = testing::CommandRun;

TEST(Cli, HelpOnEveryCommand) {
    for (const char* args : {"--help", "info --help", "tokenize --help", "attention --help"}) {
        const CliRun r = testing::runCli(args);
        EXPECT_EQ(r.exitCode, 0) << args;
        EXPECT_NE(r.out.find("Usage"), std::string::npos) << args << ": " << r.out;
    }
    EXPECT_NE(testing::runCli("attention --help").out.find("--token-ids"), std::string::npos);
}

TEST(Cli, UsageErrorsExitWithTwo) {
    const std::string bert = testing::shellQuoted(kCheckpoints / "bert_f32");
    for (const std::string& args :
         {std::string(""), std::string("frobnicate"), "attention " + bert + " --text hi",
          "attention " + bert + " --out x.h5",
          "attention " + bert + " --text hi --token-ids 1,2 --out x.h5",
          "attention " + bert + " --token-ids 1,x --out x.h5",
          "attention " + bert + " --token-ids 1 --mask sideways --out x.h5"}) {
        EXPECT_EQ(testing::runCli(args).exitCode, 2) << args;
    }
}

TEST(Cli, DataErrorsExitWithOneAndOneLine) {
    testing::ScratchDir tmp;
    const CliRun missing = testing::runCli("info " + testing::shellQuoted(tmp.path() / "nope"));
    EXPECT_EQ(missing.exitCode, 1);
    EXPECT_NE(missing.err.find("nope"), std::string::npos) << missing.err;
    EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;

    const std::string bert = testing::shellQuoted(kCheckpoints / "bert_f32");
    const CliRun badId = testing::runCli("attention " + bert + " --token-ids 1,999999 --out " +
                                         testing::shellQuoted(tmp.path() / "a.h5"));
    EXPECT_EQ(badId.exitCode, 1);
    EXPECT_NE(badId.err.find("outside the vocabulary"), std::string::npos) << badId.err;

    const CliRun badText =
        testing::runCli("attention " + bert + " --text \"$(printf 'ab\\377c')\" --out " +
                        testing::shellQuoted(tmp.path() / "a.h5"));
    EXPECT_EQ(badText.exitCode, 1);
    EXPECT_NE(badText.err.find("UTF-8"), std::string::npos) << badText.err;
    EXPECT_FALSE(fs::exists(tmp.path() / "a.h5"));
}

// Issue 15: attention takes the sentence options the other commands share, so a missing input
// and a token id outside int32 read the same whichever command was run.
TEST(Cli, AttentionSharesTheSentenceOptions) {
    testing::ScratchDir tmp;
    const std::string bert = testing::shellQuoted(kCheckpoints / "bert_f32");
    const CliRun attention = testing::runCli("attention " + bert + " --out x.h5");
    const CliRun stats = testing::runCli("stats " + bert + " --out x.csv");
    EXPECT_EQ(attention.exitCode, 2);
    EXPECT_EQ(stats.exitCode, 2);
    EXPECT_NE(attention.err.find("--text or --token-ids is required"), std::string::npos)
        << attention.err;
    EXPECT_EQ(attention.err, stats.err);

    for (const std::string& command :
         {"attention " + bert + " --out " + testing::shellQuoted(tmp.path() / "a.h5"),
          "stats " + bert + " --out " + testing::shellQuoted(tmp.path() / "a.csv"),
          "positions " + bert}) {
        const CliRun r = testing::runCli(command + " --token-ids 2,-3,3");
        EXPECT_EQ(r.exitCode, 1) << command;
        EXPECT_EQ(r.err, "attnscope-cli: --token-ids: -3 is not a valid token id\n") << command;
        const CliRun big = testing::runCli(command + " --token-ids 2,4294967296");
        EXPECT_NE(big.err.find("--token-ids: 4294967296 is not a valid token id"),
                  std::string::npos)
            << command << ": " << big.err;
    }
    EXPECT_FALSE(fs::exists(tmp.path() / "a.h5"));
}

TEST(Cli, InfoDescribesTheModel) {
    const CliRun r =
        testing::runCli("info " + testing::shellQuoted(kCheckpoints / "gpt2_sharded_bf16"));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("gpt2 (pre-norm, causal)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("layers:           4"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("BF16"), std::string::npos) << r.out;
}

TEST(Cli, DepsScoresATreebank) {
    testing::ScratchDir tmp;
    const fs::path treebank = tmp.path() / "tiny.conllu";
    testing::writeFile(treebank,
                       "# text = the cat sat .\n"
                       "1\tthe\tthe\tDET\t_\t_\t2\tdet\t_\t_\n"
                       "2\tcat\tcat\tNOUN\t_\t_\t3\tnsubj\t_\t_\n"
                       "3\tsat\tsit\tVERB\t_\t_\t0\troot\t_\t_\n"
                       "4\t.\t.\tPUNCT\t_\t_\t3\tpunct\t_\tSpaceAfter=No\n\n");
    const std::string bert = testing::shellQuoted(kCheckpoints / "bert_f32");
    EXPECT_EQ(testing::runCli("deps --help").exitCode, 0);
    EXPECT_EQ(testing::runCli("deps " + bert + " " + testing::shellQuoted(treebank) +
                              " --from middle --out x.csv")
                  .exitCode,
              2);
    EXPECT_EQ(
        testing::runCli("deps " + bert + " " + testing::shellQuoted(treebank) + " --out x.txt")
            .exitCode,
        2);
    // Multiword tokens: split (default) or share (issue 16); nothing else.
    EXPECT_EQ(testing::runCli("deps " + bert + " " + testing::shellQuoted(treebank) +
                              " --mwt both --out x.csv")
                  .exitCode,
              2);
    const CliRun shared =
        testing::runCli("deps " + bert + " " + testing::shellQuoted(treebank) +
                        " --mwt share --out " + testing::shellQuoted(tmp.path() / "shared.csv"));
    EXPECT_EQ(shared.exitCode, 0) << shared.err;
    const CliRun missing =
        testing::runCli("deps " + bert + " " + testing::shellQuoted(tmp.path() / "none.conllu") +
                        " --out " + testing::shellQuoted(tmp.path() / "x.csv"));
    EXPECT_EQ(missing.exitCode, 1);
    EXPECT_NE(missing.err.find("none.conllu"), std::string::npos) << missing.err;
    const fs::path csv = tmp.path() / "table.csv";
    const CliRun ok = testing::runCli("deps " + bert + " " + testing::shellQuoted(treebank) +
                                      " --min-count 1 --out " + testing::shellQuoted(csv));
    ASSERT_EQ(ok.exitCode, 0) << ok.err;
    EXPECT_NE(ok.err.find("scored 1 sentences"), std::string::npos) << ok.err;
    const std::string table = testing::readFile(csv);
    EXPECT_EQ(table.rfind("relation,count,best_layer,best_head,direction,accuracy,no_prediction,"
                          "baseline_offset",
                          0),
              0u)
        << table;
    EXPECT_NE(table.find("\nall,4,"), std::string::npos) << table;
    EXPECT_NE(table.find("\ndet,1,"), std::string::npos) << table;
    EXPECT_EQ(table.find("\nroot,"), std::string::npos) << table;  // left out, as in the paper

    // A malformed sentence is reported and skipped; --strict stops at it instead.
    testing::writeFile(treebank, testing::readFile(treebank) + "1\tbad\n\n");
    const CliRun lenient = testing::runCli("deps " + bert + " " + testing::shellQuoted(treebank) +
                                           " --out " + testing::shellQuoted(csv));
    EXPECT_EQ(lenient.exitCode, 0) << lenient.err;
    EXPECT_NE(lenient.err.find("1 malformed"), std::string::npos) << lenient.err;
    const CliRun strict = testing::runCli("deps " + bert + " " + testing::shellQuoted(treebank) +
                                          " --strict --out " + testing::shellQuoted(csv));
    EXPECT_EQ(strict.exitCode, 1);
    EXPECT_NE(strict.err.find("tiny.conllu:7"), std::string::npos) << strict.err;
}

// The acceptance check of the foundation issue: the CLI's attention equals PyTorch's.
class CliAttention : public ::testing::TestWithParam<std::string> {};

TEST_P(CliAttention, FileMatchesPyTorchReference) {
    testing::ScratchDir tmp;
    const fs::path dir = kCheckpoints / GetParam();
    const fs::path ref = dir / "reference_1.safetensors";
    std::string ids;
    for (const std::int32_t id : testing::readReference(ref).inputIds) {
        if (!ids.empty()) {
            ids += ',';
        }
        ids += std::to_string(id);
    }
    const fs::path out = tmp.path() / "attention.h5";
    const CliRun r = testing::runCli("attention " + testing::shellQuoted(dir) + " --token-ids " +
                                     ids + " --out " + testing::shellQuoted(out));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const CliRun check = testing::runCommand(
        std::string("'") + ATTNSCOPE_PYTHON + "' '" + ATTNSCOPE_REFERENCE_DIR + "/compare_h5.py' " +
        testing::shellQuoted(out) + " " + testing::shellQuoted(ref));
    EXPECT_EQ(check.exitCode, 0) << check.out << check.err;
}

INSTANTIATE_TEST_SUITE_P(Checkpoints, CliAttention,
                         ::testing::Values("bert_f32", "gpt2_f32", "roberta_f32",
                                           "gpt2_sharded_bf16"),
                         testing::paramName);

}  // namespace
}  // namespace attnscope
