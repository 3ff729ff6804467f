// attnscope-cli render and stats end to end: help, exit codes (0 ok, 1 data error, 2 usage
// error) and the files they write. Runs the real binary, as tests/core/cli/cli_test.cpp does.
#include <filesystem>
#include <sstream>

#include <QImage>
#include <gtest/gtest.h>

#include "../../core/support/run_command.h"
#include "../../core/support/test_files.h"
#include "gui_environment.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

using CliRun = testing::CommandRun;

const std::string kBert = testing::shellQuoted(kCheckpoints / "bert_f32");
const std::string kGpt2 = testing::shellQuoted(kCheckpoints / "gpt2_f32");

TEST(RenderCli, HelpListsTheOptions) {
    const CliRun render = testing::runCli("render --help");
    EXPECT_EQ(render.exitCode, 0);
    for (const char* option : {"--layer", "--head", "--heads", "--grid", "--width", "--height",
                               "--dpi", "--colormap", "--scaling", "--mask", "--token-ids"}) {
        EXPECT_NE(render.out.find(option), std::string::npos) << option << "\n" << render.out;
    }
    const CliRun stats = testing::runCli("stats --help");
    EXPECT_EQ(stats.exitCode, 0);
    EXPECT_NE(stats.out.find("--out"), std::string::npos) << stats.out;
    EXPECT_NE(testing::runCli("--help").out.find("render"), std::string::npos);
}

TEST(RenderCli, UsageErrorsExitWithTwo) {
    const std::string ids = " --token-ids 2,150,3 ";
    for (const std::string& args : {
             "render " + kBert + ids + "--out x.png",  // which heads?
             "render " + kBert + ids + "--out x.png --grid --layer 0 --head 0",
             "render " + kBert + ids + "--out x.png --layer 0",      // no --head
             "render " + kBert + ids + "--out x.png --heads 0-1,2",  // not LAYER-HEAD
             "render " + kBert + ids + "--out x.png --heads 0-x",
             "render " + kBert + ids + "--out x.jpg --grid",  // unknown format
             "render " + kBert + ids + "--out x --grid",
             "render " + kBert + ids + "--out x.png --grid --width 10",
             "render " + kBert + ids + "--out x.png --grid --dpi 0",
             "render " + kBert + ids + "--out x.png --grid --colormap rainbow",
             "render " + kBert + ids + "--out x.png --grid --scaling cubic",
             "render " + kBert + ids + "--out x.png --grid --mask sideways",
             "render " + kBert + " --out x.png --grid",  // no input
             "render " + kBert + " --text hi" + ids + "--out x.png --grid",
             "stats " + kBert + ids,  // no --out
             "stats " + kBert + " --out x.csv",
         }) {
        const CliRun r = testing::runCli(args);
        EXPECT_EQ(r.exitCode, 2) << args << "\n" << r.err;
    }
}

TEST(RenderCli, DataErrorsExitWithOne) {
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "fig.png";
    const CliRun noHead =
        testing::runCli("render " + kBert + " --token-ids 2,150,3 --layer 5 --head 0 --out " +
                        testing::shellQuoted(out));
    EXPECT_EQ(noHead.exitCode, 1);
    EXPECT_NE(noHead.err.find("layer 5, head 0 does not exist"), std::string::npos) << noHead.err;
    EXPECT_EQ(std::count(noHead.err.begin(), noHead.err.end(), '\n'), 1) << noHead.err;

    const CliRun badId = testing::runCli("render " + kBert + " --token-ids 2,999999 --grid --out " +
                                         testing::shellQuoted(out));
    EXPECT_EQ(badId.exitCode, 1);
    EXPECT_NE(badId.err.find("outside the vocabulary"), std::string::npos) << badId.err;

    const fs::path nowhere = tmp.path() / "missing" / "fig.svg";
    const CliRun noFolder = testing::runCli(
        "render " + kBert + " --token-ids 2,150,3 --grid --out " + testing::shellQuoted(nowhere));
    EXPECT_EQ(noFolder.exitCode, 1);
    EXPECT_NE(noFolder.err.find(nowhere.string() + ": "), std::string::npos) << noFolder.err;
    EXPECT_FALSE(fs::exists(out));

    const CliRun statsNoModel = testing::runCli(
        "stats " + testing::shellQuoted(tmp.path() / "nope") + " --token-ids 1 --out x.csv");
    EXPECT_EQ(statsNoModel.exitCode, 1);
    EXPECT_NE(statsNoModel.err.find("nope"), std::string::npos) << statsNoModel.err;
}

TEST(RenderCli, WritesAHeadPngOfTheRequestedSize) {
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "head.png";
    const CliRun r = testing::runCli(
        "render " + kGpt2 + " --text 'Researchers compare attention heads' --layer 1 " +
        "--head 2 --width 800 --height 640 --dpi 160 --colormap magma --scaling log " + "--out " +
        testing::shellQuoted(out));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const QImage image(QString::fromStdString(out.string()));
    ASSERT_FALSE(image.isNull());
    EXPECT_EQ(image.size(), QSize(800, 640));
    EXPECT_NEAR(image.dotsPerMeterX(), 160 / 0.0254, 1.0);
}

// The offscreen platform is chosen by the command itself, so a platform inherited from a
// desktop session cannot break it, and commands other than render never start Qt's GUI layer.
TEST(RenderCli, RunsHeadlessWhateverTheEnvironmentSays) {
    testing::ScratchDir tmp;
    const std::string env = "QT_QPA_PLATFORM=no-such-platform DISPLAY= WAYLAND_DISPLAY= ";
    const fs::path svg = tmp.path() / "grid.svg";
    const CliRun grid = testing::runCommand(
        env + testing::cliCommand("render " + kBert + " --token-ids 2,150,200,3 --grid --out " +
                                  testing::shellQuoted(svg)));
    ASSERT_EQ(grid.exitCode, 0) << grid.err;
    EXPECT_NE(testing::readFile(svg).find("<svg"), std::string::npos);

    const fs::path pdf = tmp.path() / "set.pdf";
    const CliRun set = testing::runCommand(
        env + testing::cliCommand("render " + kBert + " --token-ids 2,150,200,3 --heads 0-1,1-2 " +
                                  "--mask causal --out " + testing::shellQuoted(pdf)));
    ASSERT_EQ(set.exitCode, 0) << set.err;
    EXPECT_EQ(testing::readFile(pdf).rfind("%PDF-", 0), 0u);

    const CliRun info = testing::runCommand(env + testing::cliCommand("info " + kBert));
    EXPECT_EQ(info.exitCode, 0) << info.err;
}

TEST(StatsCli, WritesOneRowPerHead) {
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "stats.csv";
    const CliRun r = testing::runCommand(
        "QT_QPA_PLATFORM=no-such-platform " +
        testing::cliCommand("stats " + kGpt2 + " --text 'Researchers compare attention heads' " +
                            "--out " + testing::shellQuoted(out)));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    std::istringstream in(testing::readFile(out));
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
    }
    ASSERT_EQ(lines.size(), 2u * 3u + 1u);
    EXPECT_EQ(lines[0],
              "layer,head,mean_entropy_nats,mean_normalized_entropy,max_weight,mean_max_weight,"
              "max_abs_logit");
    EXPECT_EQ(lines[1].rfind("0,0,", 0), 0u) << lines[1];
    EXPECT_EQ(lines[6].rfind("1,2,", 0), 0u) << lines[6];
}

}  // namespace
}  // namespace attnscope
