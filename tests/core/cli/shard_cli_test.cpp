// Corpus jobs across machines (issue 35): `deps`, `coref`, `positions` and `saturation` with
// --shard k/N, then
// `merge` of the N parts (given in any order), write byte for byte the file one plain run
// writes, on a corpus with sentences of very different lengths, one too long for the model, one
// without a tree and one malformed; and every misuse of --shard and merge is refused.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/run_command.h"
#include "../support/test_files.h"
#include "cli_corpora.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;
using testing::chain;
using testing::corefTreebank;
using testing::treebank;

const fs::path kBert = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints" / "bert_f32";

std::string q(const fs::path& p) {
    return testing::shellQuoted(p);
}

// Runs `command` once plainly into `plainOut` and as `shards` shards merged into `mergedOut`;
// expects equal files and equal standard output.
void expectShardsEqualOneRun(const testing::ScratchDir& tmp, const std::string& command,
                             const std::string& plainOutOption, const std::string& outName,
                             int shards) {
    SCOPED_TRACE(command + " " + outName + " in " + std::to_string(shards) + " shards");
    const fs::path plain = tmp.path() / ("plain_" + outName);
    const testing::CommandRun one =
        testing::runCli(command + " " + plainOutOption + " " + q(plain));
    ASSERT_EQ(one.exitCode, 0) << one.err;
    std::string parts;
    for (int k = shards - 1; k >= 0; --k) {  // merge takes them in any order
        std::string name = "p";  // appended: GCC 12's -Wrestrict false positive (bug 105329)
        name.append(std::to_string(k)).append(".part.json");
        const fs::path part = tmp.path() / name;
        const testing::CommandRun r =
            testing::runCli(command + " --shard " + std::to_string(k) + "/" +
                            std::to_string(shards) + " --out " + q(part));
        ASSERT_EQ(r.exitCode, 0) << r.err;
        EXPECT_TRUE(testing::contains(r.err, "wrote shard " + std::to_string(k))) << r.err;
        parts.append(" ").append(q(part));
    }
    const fs::path merged = tmp.path() / ("merged_" + outName);
    const testing::CommandRun m = testing::runCli("merge" + parts + " --out " + q(merged));
    ASSERT_EQ(m.exitCode, 0) << m.err;
    EXPECT_EQ(m.out, one.out);
    const std::string a = testing::readFile(plain);
    ASSERT_FALSE(a.empty());
    EXPECT_TRUE(a == testing::readFile(merged)) << "the merged file differs from one run's";
}

TEST(ShardCli, DepsShardsMergeIntoOneRunsFiles) {
    testing::ScratchDir tmp;
    const fs::path ud = tmp.path() / "ud.conllu";
    testing::writeFile(ud, treebank());
    const std::string deps = "deps " + q(kBert) + " " + q(ud) + " --min-count 1";
    for (const int shards : {1, 3, 4}) {
        expectShardsEqualOneRun(tmp, deps, "--out", "table.csv", shards);
        expectShardsEqualOneRun(tmp, deps, "--out", "counts.h5", shards);
    }
    // More shards than sentences: some shards score nothing, the merge still equals one run.
    expectShardsEqualOneRun(tmp, deps + " --max-sentences 4 --from first", "--out", "few.csv", 6);
}

TEST(ShardCli, DepsSkipsAreCountedOnce) {
    testing::ScratchDir tmp;
    const fs::path ud = tmp.path() / "ud.conllu";
    testing::writeFile(ud, treebank());
    const std::string deps = "deps " + q(kBert) + " " + q(ud);
    const testing::CommandRun one = testing::runCli(deps + " --out " + q(tmp.path() / "a.csv"));
    ASSERT_EQ(one.exitCode, 0) << one.err;
    EXPECT_TRUE(testing::contains(one.err, "scored 9 sentences, skipped 3")) << one.err;
    std::string parts;
    for (int k = 0; k < 2; ++k) {
        std::string name = "d";
        name.append(std::to_string(k)).append(".part.json");
        const fs::path part = tmp.path() / name;
        ASSERT_EQ(testing::runCli(deps + " --shard " + std::to_string(k) + "/2 --out " + q(part))
                      .exitCode,
                  0);
        parts.append(" ").append(q(part));
    }
    const testing::CommandRun m =
        testing::runCli("merge" + parts + " --out " + q(tmp.path() / "b.csv"));
    ASSERT_EQ(m.exitCode, 0) << m.err;
    EXPECT_TRUE(testing::contains(m.err, "scored 9 sentences, skipped 3")) << m.err;
    EXPECT_TRUE(testing::contains(m.err, "1 longer than")) << m.err;
    EXPECT_TRUE(testing::contains(m.err, "1 no dependency tree")) << m.err;
    EXPECT_TRUE(testing::contains(m.err, "1 malformed in the treebank")) << m.err;
}

TEST(ShardCli, CorefShardsMergeIntoOneRunsFiles) {
    testing::ScratchDir tmp;
    const fs::path ud = tmp.path() / "coref.conllu";
    testing::writeFile(ud, corefTreebank());
    const std::string coref = "coref " + q(kBert) + " " + q(ud) + " --max-tokens 24";
    for (const int shards : {1, 2, 5}) {
        expectShardsEqualOneRun(tmp, coref, "--out", "heads.csv", shards);
        expectShardsEqualOneRun(tmp, coref, "--out", "heads.h5", shards);
    }
}

TEST(ShardCli, PositionsShardsMergeIntoOneRunsCsvAndTable) {
    testing::ScratchDir tmp;
    std::string text = "the cat sat on the mat\nattention heads look at the previous word\n";
    for (int i = 0; i < 100; ++i) {
        text += "word ";
    }
    text +=
        "\nwhy\na dog and a cat and a bird sat on a very long mat today with us all\nhi there\n";
    const fs::path file = tmp.path() / "sentences.txt";
    testing::writeFile(file, text);
    const std::string positions = "positions " + q(kBert) + " --sentences " + q(file);
    for (const int shards : {1, 2, 4}) {
        expectShardsEqualOneRun(tmp, positions, "--csv", "positions.csv", shards);
        expectShardsEqualOneRun(tmp, positions + " --include-special --threshold 0.5", "--csv",
                                "special.csv", shards);
    }
}

TEST(ShardCli, SaturationShardsMergeIntoOneRunsFilesAndTable) {
    testing::ScratchDir tmp;
    std::string text = "the cat sat\n";
    for (int i = 0; i < 100; ++i) {
        text += "word ";
    }
    text += "\nwhy\na dog and a cat and a bird sat on a very long mat today\nhi there\n";
    const fs::path file = tmp.path() / "sentences.txt";
    testing::writeFile(file, text);
    const std::string saturation = "saturation " + q(kBert) + " --sentences " + q(file);
    for (const int shards : {2, 3}) {
        expectShardsEqualOneRun(tmp, saturation, "--out", "saturation.h5", shards);
        expectShardsEqualOneRun(tmp, saturation + " --what-if scale=0.5", "--out", "what_if.csv",
                                shards);
    }
}

TEST(ShardCli, MisuseIsRefused) {
    testing::ScratchDir tmp;
    const fs::path ud = tmp.path() / "ud.conllu";
    testing::writeFile(ud, treebank());
    const std::string deps = "deps " + q(kBert) + " " + q(ud);
    const auto part = [&](const std::string& name) { return q(tmp.path() / name); };
    // Usage errors (exit 2): a part without --shard, --shard without a part, K >= N, --dump.
    EXPECT_EQ(testing::runCli(deps + " --out " + part("x.part.json")).exitCode, 2);
    EXPECT_EQ(testing::runCli(deps + " --shard 0/2 --out " + part("x.csv")).exitCode, 2);
    EXPECT_EQ(testing::runCli(deps + " --shard 2/2 --out " + part("x.part.json")).exitCode, 2);
    EXPECT_EQ(testing::runCli(deps + " --shard 0/2 --dump " + part("d.h5") + " --out " +
                              part("x.part.json"))
                  .exitCode,
              2);
    EXPECT_EQ(testing::runCli("positions " + q(kBert) + " --text hi --shard 0/2 --out " +
                              part("x.part.json"))
                  .exitCode,
              2);
    ASSERT_EQ(testing::runCli(deps + " --shard 0/3 --out " + part("a.part.json")).exitCode, 0);
    ASSERT_EQ(testing::runCli(deps + " --shard 1/3 --out " + part("b.part.json")).exitCode, 0);
    ASSERT_EQ(
        testing::runCli(deps + " --from max --shard 2/3 --out " + part("c.part.json")).exitCode, 0);
    ASSERT_EQ(testing::runCli(deps + " --shard 1/3 --out " + part("b2.part.json")).exitCode, 0);
    const auto merge = [&](const std::string& parts) {
        return testing::runCli("merge " + parts + " --out " + part("m.csv"));
    };
    const testing::CommandRun missing = merge(part("a.part.json") + " " + part("b.part.json"));
    EXPECT_EQ(missing.exitCode, 1);
    EXPECT_TRUE(testing::contains(missing.err, "a.part.json: shard 2/3 is missing")) << missing.err;
    const testing::CommandRun options =
        merge(part("a.part.json") + " " + part("b.part.json") + " " + part("c.part.json"));
    EXPECT_EQ(options.exitCode, 1);
    EXPECT_TRUE(testing::contains(options.err, "c.part.json: the options differ")) << options.err;
    EXPECT_TRUE(testing::contains(options.err, "$.from")) << options.err;
    const testing::CommandRun twice =
        merge(part("a.part.json") + " " + part("b.part.json") + " " + part("b2.part.json"));
    EXPECT_EQ(twice.exitCode, 1);
    EXPECT_TRUE(testing::contains(twice.err, "shard 1/3 again")) << twice.err;
    testing::writeFile(tmp.path() / "bad.part.json", "{\"format\": \"attnscope-partial\"");
    const testing::CommandRun bad = merge(part("bad.part.json"));
    EXPECT_EQ(bad.exitCode, 1);
    EXPECT_TRUE(testing::contains(bad.err, "bad.part.json")) << bad.err;
    EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
    EXPECT_FALSE(fs::exists(tmp.path() / "m.csv"));
    EXPECT_EQ(testing::runCli("merge --help").exitCode, 0);
}

}  // namespace
}  // namespace attnscope
