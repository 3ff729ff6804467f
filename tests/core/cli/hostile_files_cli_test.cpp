// attnscope-cli against broken and hostile files and outputs (issue 14), end to end: every case
// ends with exit 1 (data) or 2 (usage) and one line naming the file and the reason — never a
// signal, a hang or a silent success — and what the output path was survives.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "../support/run_command.h"
#include "../support/test_files.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;
using testing::CommandRun;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

// `timeout` turns a hang into a failure instead of a stuck test run.
CommandRun cli(const std::string& args) {
    return testing::runCommand("timeout 120 " + testing::cliCommand(args));
}

// As if the disk filled up after `kib` KiB: writes past it fail with EFBIG (SIGXFSZ ignored).
CommandRun cliOnFullDisk(int kib, const std::string& args) {
    return testing::runCommand("sh -c \"trap '' XFSZ; ulimit -f " + std::to_string(2 * kib) +
                               "; exec timeout 120 " + testing::cliCommand(args) + "\"");
}

// Exit 1 and one line of ours (Qt may add its own notes, e.g. about XDG_RUNTIME_DIR).
void expectDataError(const CommandRun& r, std::initializer_list<std::string> fragments) {
    EXPECT_EQ(r.exitCode, 1) << r.err;
    std::size_t ours = 0;
    for (std::size_t at = r.err.find("attnscope-cli: "); at != std::string::npos;
         at = r.err.find("attnscope-cli: ", at + 1)) {
        ++ours;
    }
    EXPECT_EQ(ours, 1u) << r.err;
    for (const std::string& f : fragments) {
        EXPECT_NE(r.err.find(f), std::string::npos) << "'" << r.err << "' lacks '" << f << "'";
    }
}

const std::string kBert = testing::shellQuoted(kCheckpoints / "bert_f32");

TEST(HostileOutputs, ASymlinkIsFollowedNotReplaced) {
    testing::ScratchDir tmp;
    const fs::path real = tmp.path() / "real.csv";
    const fs::path link = tmp.path() / "link.csv";
    testing::writeFile(real, "old");
    fs::create_symlink("real.csv", link);
    const CommandRun r =
        cli("stats " + kBert + " --token-ids 2,5,3 --out " + testing::shellQuoted(link));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_EQ(testing::readFile(real).rfind("layer,head", 0), 0u) << testing::readFile(real);
}

TEST(HostileOutputs, DevicesAndPipesAreWrittenThrough) {
    const CommandRun toNull = cli("stats " + kBert + " --token-ids 2,5,3 --out /dev/null");
    EXPECT_EQ(toNull.exitCode, 0) << toNull.err;

    struct stat st {};

    ASSERT_EQ(::stat("/dev/null", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null was replaced";

    const CommandRun toStdout = cli("stats " + kBert + " --token-ids 2,5,3 --out /dev/stdout");
    EXPECT_EQ(toStdout.exitCode, 0) << toStdout.err;
    EXPECT_EQ(toStdout.out.rfind("layer,head", 0), 0u) << toStdout.out;

    if (fs::exists("/dev/full")) {
        expectDataError(cli("stats " + kBert + " --token-ids 2,5,3 --out /dev/full"),
                        {"/dev/full", "No space left on device"});
        ASSERT_EQ(::stat("/dev/full", &st), 0);
        EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/full was replaced by a file";
    }
    testing::ScratchDir tmp;
    expectDataError(
        cli("stats " + kBert + " --token-ids 2,5,3 --out " + testing::shellQuoted(tmp.path())),
        {"is a folder"});
}

TEST(HostileOutputs, AFullDiskIsAnErrorAndKeepsTheOldFile) {
    for (const char* name : {"map.svg", "map.png", "all.h5"}) {
        testing::ScratchDir tmp;
        const fs::path out = tmp.path() / name;
        testing::writeFile(out, "old");
        const std::string command =
            std::string(name).ends_with(".h5")
                ? "attention " + kBert + " --token-ids 2,5,6,7,3 --out " + testing::shellQuoted(out)
                : "render " + kBert + " --token-ids 2,5,3 --layer 0 --head 0 --out " +
                      testing::shellQuoted(out);
        // The HDF5 case used to print its error, then die with SIGSEGV in HDF5's teardown;
        // the SVG case reported success with a truncated file.
        expectDataError(cliOnFullDisk(4, command), {name, "File too large"});
        EXPECT_EQ(testing::readFile(out), "old") << name;
        EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path()), fs::directory_iterator()), 1)
            << "a temporary file was left behind for " << name;
    }
}

// Issue 30: what a command prints to standard output on a full disk was lost with exit code 0.
TEST(HostileOutputs, StandardOutputOnAFullDiskIsAnError) {
    if (!fs::exists("/dev/full")) {
        GTEST_SKIP() << "no /dev/full";
    }
    for (const std::string& args :
         {"predict " + kBert + " --token-ids 2,4,3 --position 1", "info " + kBert,
          "tokenize " + kBert + " hi",
          "predict " + kBert + " --token-ids 2,4,3 --position 1 --csv /dev/stdout"}) {
        expectDataError(cli(args + " >/dev/full"),
                        {"No space left on device",
                         args.ends_with("stdout") ? "/dev/stdout" : "standard output"});
    }
    expectDataError(cli("predict " + kBert + " --token-ids 2,4,3 --position 1 --csv /dev/full"),
                    {"/dev/full: cannot write: No space left on device"});
}

// Issue 30: an output that cannot be written is found before the model is even read, so a long
// run never ends by failing on its output. The model folder here does not exist: the message
// must be about the output all the same.
TEST(HostileOutputs, OutputsAreCheckedBeforeAnyWork) {
    testing::ScratchDir tmp;
    const std::string model = testing::shellQuoted(tmp.path() / "no-model");
    const std::string input = testing::shellQuoted(tmp.path() / "no-input.conllu");
    const fs::path folder = tmp.path() / "no-folder";
    const auto in = [&](const std::string& name) { return testing::shellQuoted(folder / name); };
    const std::string missing =
        ": cannot write: the folder '" + folder.string() + "' does not exist";

    struct Case {
        std::string args;
        std::string message;
    };

    const std::vector<Case> cases = {
        {"attention " + model + " --token-ids 1 --out " + in("a.h5"), "--out: "},
        {"render " + model + " --token-ids 1 --layer 0 --head 0 --out " + in("a.png"), "--out: "},
        {"stats " + model + " --token-ids 1 --out " + in("a.csv"), "--out: "},
        {"predict " + model + " --token-ids 1 --csv " + in("a.csv"), "--csv: "},
        {"positions " + model + " --token-ids 1 --csv " + in("a.csv"), "--csv: "},
        {"deps " + model + " " + input + " --out " + in("a.csv"), "--out: "},
        {"deps " + model + " " + input + " --out " + testing::shellQuoted(tmp.path() / "ok.csv") +
             " --dump " + in("a.h5"),
         "--dump: "},
        {"coref " + model + " " + input + " --out " + in("a.csv"), "--out: "},
        {"survey " + model + " " + input + " --out " + in("a.csv"), "--out: "},
        {"attribution " + model + " --token-ids 1 --method raw --out " + in("a.h5"), "--out: "},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.args);
        const CommandRun r = cli(c.args);
        expectDataError(r, {c.message + folder.string(), missing});
        EXPECT_EQ(r.err.find("no-model"), std::string::npos) << r.err;
    }
    EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path()), fs::directory_iterator()), 0)
        << "the check left a file behind";
}

TEST(HostileInputs, BrokenFilesEndAsOneLine) {
    testing::ScratchDir tmp;
    const fs::path model = tmp.copyOf(kCheckpoints / "bert_f32", "bert");
    testing::writeFile(model / "config.json", "{\"model_type\": \"bert\", \"hidden_size\": 1e400}");
    expectDataError(cli("info " + testing::shellQuoted(model)),
                    {"config.json", "1e400", "outside the range"});

    fs::remove(model / "config.json");
    fs::create_directory(model / "config.json");
    expectDataError(cli("info " + testing::shellQuoted(model)), {"config.json", "is a directory"});

    fs::create_symlink("loop", tmp.path() / "loop");
    expectDataError(cli("info " + testing::shellQuoted(tmp.path() / "loop")),
                    {"loop", "Too many levels of symbolic links"});

    const fs::path fifoModel = tmp.copyOf(kCheckpoints / "bert_f32", "fifo");
    fs::remove(fifoModel / "model.safetensors");
    ASSERT_EQ(::mkfifo((fifoModel / "model.safetensors").c_str(), 0600), 0);
    expectDataError(cli("info " + testing::shellQuoted(fifoModel)), {"model.safetensors", "FIFO"});
}

TEST(HostileInputs, ImpossibleSettingsAreUsageErrors) {
    for (const char* scale : {"nan", "inf", "-inf"}) {
        const CommandRun r =
            cli("attention " + kBert + " --token-ids 2,5,3 --scale " + scale + " --out x.h5");
        EXPECT_EQ(r.exitCode, 2) << scale << ": " << r.err;
        EXPECT_NE(r.err.find("finite"), std::string::npos) << r.err;
    }
    // Issue 30: CLI::Range let NaN through, CLI11 clamped 2^64 to 2^64 - 1 and read -1 as it,
    // and an id list of '' was the id 0 while empty elements vanished.
    const std::string survey = "survey " + kBert + " corpus.txt --out x.csv ";
    const std::string ids = "stats " + kBert + " --out x.csv --token-ids ";

    struct Case {
        std::string args;
        std::string message;
    };

    const std::vector<Case> cases = {
        {survey + "--sink-eps nan", "--sink-eps: 'nan' is not a number in [0, 1]"},
        {survey + "--positional-threshold nan", "--positional-threshold: 'nan' is not a number"},
        {"positions " + kBert + " --token-ids 2,3 --threshold nan", "--threshold: 'nan'"},
        {survey + "--probe-seed 18446744073709551616",
         "--probe-seed: '18446744073709551616' is larger than 18446744073709551615"},
        {survey + "--probe-seed -1", "--probe-seed: '-1' is not a whole number"},
        {ids + "''", "--token-ids: the id list is empty"},
        {ids + "2,,3", "--token-ids: element 2 of '2,,3' is empty"},
        {ids + "2,3,", "--token-ids: element 3 of '2,3,' is empty"},
        {ids + "2,x", "--token-ids: 'x' is not a token id"},
        {ids + "99999999999999999999", "--token-ids: '99999999999999999999' is not a valid"},
        {"ablate " + kBert + " --heads 0-0 --token-ids ''", "--token-ids: the id list is empty"},
        {"importance " + kBert + " corpus.txt --out x.csv --seed 18446744073709551616",
         "--seed: '18446744073709551616' is larger than 18446744073709551615"},
        {"importance " + kBert + " corpus.txt --out x.csv --mask-fraction nan",
         "--mask-fraction: 'nan' is not a number"},
    };
    for (const Case& c : cases) {
        const CommandRun r = cli(c.args);
        EXPECT_EQ(r.exitCode, 2) << c.args << ": " << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << ": " << r.err;
    }
}

// Issue 30: empty text read "forward pass: no tokens"; a tokenizer file from another model
// (here a vocab.txt with one token more than vocab_size) only "id 409 is outside the vocabulary".
TEST(HostileInputs, TextTheModelCannotRunNamesTheCause) {
    const std::string gpt2 = testing::shellQuoted(kCheckpoints / "gpt2_f32");
    for (const std::string& command :
         {"attention " + gpt2 + " --text '' --out x.h5", "stats " + gpt2 + " --text '' --out x.csv",
          "ablate " + gpt2 + " --text '' --heads 0-0"}) {
        expectDataError(cli(command),
                        {"--text: the text gives no tokens (it is empty, or the "
                         "tokenizer keeps nothing of it and adds no special tokens)"});
    }
    testing::ScratchDir tmp;
    const fs::path model = tmp.copyOf(kCheckpoints / "bert_f32", "bert");
    testing::writeFile(model / "vocab.txt", testing::readFile(model / "vocab.txt") + "zzzz\n");
    const CommandRun r = cli("stats " + testing::shellQuoted(model) + " --text 'the zzzz' --out " +
                             testing::shellQuoted(tmp.path() / "x.csv"));
    EXPECT_EQ(r.exitCode, 1) << r.err;
    const std::string vocab = (model / "vocab.txt").string();
    EXPECT_NE(
        r.err.find("attnscope-cli: warning: the tokenizer (WordPiece (410 tokens) from " + vocab +
                   ") exceeds config.json's vocab_size of 409: the tokenizer "
                   "files may not belong to this model\n"),
        std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("attnscope-cli: --text: " + model.string() +
                         ": the tokenizer (WordPiece (410 tokens) from " + vocab +
                         ") gives token 2 ('zzzz') the id 409, but config.json's vocab_size is "
                         "409: the tokenizer files do not belong to this model\n"),
              std::string::npos)
        << r.err;
}

TEST(HostileInputs, DepsNeedsSentences) {
    testing::ScratchDir tmp;
    const fs::path empty = tmp.path() / "empty.conllu";
    testing::writeFile(empty, "");
    const std::string out = " --out " + testing::shellQuoted(tmp.path() / "x.csv");
    expectDataError(cli("deps " + kBert + " " + testing::shellQuoted(empty) + out),
                    {"empty.conllu", "holds no sentences"});
    expectDataError(cli("deps " + kBert + " " + testing::shellQuoted(tmp.path()) + out),
                    {"is a directory"});
    const fs::path broken = tmp.path() / "broken.conllu";
    testing::writeFile(broken, "1\tthe\n\n");
    expectDataError(cli("deps " + kBert + " " + testing::shellQuoted(broken) + out),
                    {"broken.conllu", "no usable sentence"});
    EXPECT_FALSE(fs::exists(tmp.path() / "x.csv"));
}

}  // namespace
}  // namespace attnscope
