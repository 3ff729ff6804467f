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

CliRun run(const std::string& commandLine) {
    return testing::runCommand(commandLine);
}

std::string cli(const std::string& args) {
    return std::string("'") + ATTNSCOPE_CLI + "' " + args;
}

std::string quoted(const fs::path& p) {
    return testing::shellQuoted(p);
}

const std::string kBert = quoted(kCheckpoints / "bert_f32");
const std::string kGpt2 = quoted(kCheckpoints / "gpt2_f32");

TEST(RenderCli, HelpListsTheOptions) {
    const CliRun render = run(cli("render --help"));
    EXPECT_EQ(render.exitCode, 0);
    for (const char* option : {"--layer", "--head", "--heads", "--grid", "--width", "--height",
                               "--dpi", "--colormap", "--scaling", "--mask", "--token-ids"}) {
        EXPECT_NE(render.out.find(option), std::string::npos) << option << "\n" << render.out;
    }
    const CliRun stats = run(cli("stats --help"));
    EXPECT_EQ(stats.exitCode, 0);
    EXPECT_NE(stats.out.find("--out"), std::string::npos) << stats.out;
    EXPECT_NE(run(cli("--help")).out.find("render"), std::string::npos);
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
        const CliRun r = run(cli(args));
        EXPECT_EQ(r.exitCode, 2) << args << "\n" << r.err;
    }
}

TEST(RenderCli, DataErrorsExitWithOne) {
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "fig.png";
    const CliRun noHead = run(
        cli("render " + kBert + " --token-ids 2,150,3 --layer 5 --head 0 --out " + quoted(out)));
    EXPECT_EQ(noHead.exitCode, 1);
    EXPECT_NE(noHead.err.find("layer 5, head 0 does not exist"), std::string::npos) << noHead.err;
    EXPECT_EQ(std::count(noHead.err.begin(), noHead.err.end(), '\n'), 1) << noHead.err;

    const CliRun badId =
        run(cli("render " + kBert + " --token-ids 2,999999 --grid --out " + quoted(out)));
    EXPECT_EQ(badId.exitCode, 1);
    EXPECT_NE(badId.err.find("outside the vocabulary"), std::string::npos) << badId.err;

    const fs::path nowhere = tmp.path() / "missing" / "fig.svg";
    const CliRun noFolder =
        run(cli("render " + kBert + " --token-ids 2,150,3 --grid --out " + quoted(nowhere)));
    EXPECT_EQ(noFolder.exitCode, 1);
    EXPECT_NE(noFolder.err.find(nowhere.string() + ": "), std::string::npos) << noFolder.err;
    EXPECT_FALSE(fs::exists(out));

    const CliRun statsNoModel =
        run(cli("stats " + quoted(tmp.path() / "nope") + " --token-ids 1 --out x.csv"));
    EXPECT_EQ(statsNoModel.exitCode, 1);
    EXPECT_NE(statsNoModel.err.find("nope"), std::string::npos) << statsNoModel.err;
}

TEST(RenderCli, WritesAHeadPngOfTheRequestedSize) {
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "head.png";
    const CliRun r =
        run(cli("render " + kGpt2 + " --text 'Researchers compare attention heads' --layer 1 " +
                "--head 2 --width 800 --height 640 --dpi 160 --colormap magma --scaling log " +
                "--out " + quoted(out)));
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
    const CliRun grid =
        run(env + cli("render " + kBert + " --token-ids 2,150,200,3 --grid --out " + quoted(svg)));
    ASSERT_EQ(grid.exitCode, 0) << grid.err;
    EXPECT_NE(testing::readFile(svg).find("<svg"), std::string::npos);

    const fs::path pdf = tmp.path() / "set.pdf";
    const CliRun set =
        run(env + cli("render " + kBert + " --token-ids 2,150,200,3 --heads 0-1,1-2 " +
                      "--mask causal --out " + quoted(pdf)));
    ASSERT_EQ(set.exitCode, 0) << set.err;
    EXPECT_EQ(testing::readFile(pdf).rfind("%PDF-", 0), 0u);

    const CliRun info = run(env + cli("info " + kBert));
    EXPECT_EQ(info.exitCode, 0) << info.err;
}

TEST(StatsCli, WritesOneRowPerHead) {
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "stats.csv";
    const CliRun r = run("QT_QPA_PLATFORM=no-such-platform " +
                         cli("stats " + kGpt2 + " --text 'Researchers compare attention heads' " +
                             "--out " + quoted(out)));
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
