// attnscope-cli coref end to end (issue 16): options, the CSV and HDF5 results on a hand-made
// CorefUD file whose baseline verdicts are worked out below, errors, and Ctrl+C.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "../support/cli_corpus.h"
#include "../support/run_command.h"
#include "../support/test_files.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";
const fs::path kGumDev =
    fs::path(ATTNSCOPE_SHARED_DIR) / "data/ud/UD_English-GUM/en_gum-ud-dev.conllu";

// Document 1: "Kim saw her sister . She smiled ." with Kim, her and She in entity 1 and "her
// sister" in entity 2. Scored (R5): "her" (antecedent Kim) and "She" (Kim, her); "her sister"
// and Kim have no earlier mention of their entity. Baselines (R8):
//   her: candidates Kim. nearest Kim (right); head match: no lemma "she" (wrong); sieve: no
//        string or lemma match, Kim agrees (Number=Sing, no gender) -> Kim (right).
//   She: candidates Kim, "her sister", her. nearest: "her sister" and "her" both start at word
//        3, "her sister" ends last (wrong); head match: her, lemma "she" (right); sieve: no
//        string match, lemma match her (right).
// Document 2 reuses eid 1 for another entity: its "She" has no antecedent there.
constexpr const char* kTwoDocuments =
    "# newdoc id = one\n"
    "# text = Kim saw her sister.\n"
    "1\tKim\tKim\tPROPN\t_\tNumber=Sing\t2\tnsubj\t_\tEntity=(1-person-new)\n"
    "2\tsaw\tsee\tVERB\t_\t_\t0\troot\t_\t_\n"
    "3\ther\tshe\tPRON\t_\tGender=Fem|Number=Sing|Person=3\t4\tnmod:poss\t_\t"
    "Entity=(2-person-new(1-person-giv)\n"
    "4\tsister\tsister\tNOUN\t_\tNumber=Sing\t2\tobj\t_\tEntity=2)|SpaceAfter=No\n"
    "5\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_\n"
    "\n"
    "# text = She smiled.\n"
    "1\tShe\tshe\tPRON\t_\tGender=Fem|Number=Sing|Person=3\t2\tnsubj\t_\tEntity=(1-person-giv)\n"
    "2\tsmiled\tsmile\tVERB\t_\t_\t0\troot\t_\tSpaceAfter=No\n"
    "3\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_\n"
    "\n"
    "# newdoc id = two\n"
    "# text = She left.\n"
    "1\tShe\tshe\tPRON\t_\tNumber=Sing\t2\tnsubj\t_\tEntity=(1-person-new)\n"
    "2\tleft\tleave\tVERB\t_\t_\t0\troot\t_\tSpaceAfter=No\n"
    "3\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_\n"
    "\n";

TEST(CorefCli, ScoresHandMadeDocuments) {
    testing::ScratchDir tmp;
    const fs::path treebank = tmp.path() / "coref.conllu";
    testing::writeFile(treebank, kTwoDocuments);
    const std::string bert = testing::shellQuoted(kCheckpoints / "bert_f32");
    const fs::path csv = tmp.path() / "heads.csv";
    const testing::CommandRun ok =
        testing::runCli("coref " + bert + " " + testing::shellQuoted(treebank) + " --out " +
                        testing::shellQuoted(csv));
    ASSERT_EQ(ok.exitCode, 0) << ok.err;
    EXPECT_NE(ok.out.find("mentions 5, scored 2"), std::string::npos) << ok.out;
    EXPECT_NE(ok.out.find("windows of up to 40 tokens: 2 in 2 documents"), std::string::npos)
        << ok.out;
    const std::string table = testing::readFile(csv);
    EXPECT_EQ(table.rfind("kind,name,layer,head,group,correct,predicted,no_prediction,total,"
                          "accuracy\n",
                          0),
              0u)
        << table;
    // bert_f32 has 2 layers x 3 heads: 6 heads x 4 groups, then 3 baselines x 4 groups.
    EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 1 + 24 + 12) << table;
    EXPECT_NE(table.find("\nhead,1-2,1,2,pronoun,"), std::string::npos) << table;
    EXPECT_NE(table.find("\nbaseline,nearest,,,all,1,2,0,2,0.5"), std::string::npos) << table;
    EXPECT_NE(table.find("\nbaseline,head_match,,,pronoun,1,2,0,2,0.5"), std::string::npos)
        << table;
    EXPECT_NE(table.find("\nbaseline,sieve,,,all,2,2,0,2,1"), std::string::npos) << table;
    EXPECT_NE(table.find("\nbaseline,sieve,,,proper,0,0,0,0,"), std::string::npos) << table;

    // The same run as HDF5, with the attention of both windows dumped.
    const fs::path h5 = tmp.path() / "coref.h5";
    const testing::CommandRun full =
        testing::runCli("coref " + bert + " " + testing::shellQuoted(treebank) +
                        " --max-tokens 30 " + "--threads 1 --out " + testing::shellQuoted(h5) +
                        " --dump " + testing::shellQuoted(tmp.path() / "dump.h5"));
    ASSERT_EQ(full.exitCode, 0) << full.err;
    EXPECT_TRUE(fs::is_regular_file(h5));
    EXPECT_TRUE(fs::is_regular_file(tmp.path() / "dump.h5"));
    EXPECT_NE(full.out.find("up to 30 tokens"), std::string::npos) << full.out;
}

TEST(CorefCli, UsageAndDataErrors) {
    testing::ScratchDir tmp;
    const fs::path treebank = tmp.path() / "coref.conllu";
    testing::writeFile(treebank, kTwoDocuments);
    const std::string bert = testing::shellQuoted(kCheckpoints / "bert_f32");
    const std::string base = "coref " + bert + " " + testing::shellQuoted(treebank);
    EXPECT_EQ(testing::runCli("coref --help").exitCode, 0);
    for (const std::string& bad :
         {std::string(" --out x.txt"), std::string(" --mwt both --out x.csv"),
          std::string(" --max-tokens -1 --out x.csv"), std::string(" --from middle --out x.csv")}) {
        EXPECT_EQ(testing::runCli(base + bad).exitCode, 2) << bad;
    }
    // No mention can be scored: one line naming the file, nothing written.
    const fs::path lonely = tmp.path() / "lonely.conllu";
    testing::writeFile(lonely,
                       "# text = Kim left.\n"
                       "1\tKim\tKim\tPROPN\t_\t_\t2\tnsubj\t_\tEntity=(1-person-new)\n"
                       "2\tleft\tleave\tVERB\t_\t_\t0\troot\t_\tSpaceAfter=No\n"
                       "3\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_\n\n");
    const fs::path out = tmp.path() / "never.csv";
    const testing::CommandRun none =
        testing::runCli("coref " + bert + " " + testing::shellQuoted(lonely) + " --out " +
                        testing::shellQuoted(out));
    EXPECT_EQ(none.exitCode, 1);
    EXPECT_NE(none.err.find("lonely.conllu: no mention could be scored"), std::string::npos)
        << none.err;
    EXPECT_FALSE(fs::exists(out));
    // A malformed Entity= value: a warning and the sentence's mentions dropped; --strict stops.
    testing::writeFile(treebank, std::string(kTwoDocuments) +
                                     "# text = Bad.\n"
                                     "1\tBad\tbad\tADJ\t_\t_\t0\troot\t_\tEntity=(-x)\n\n");
    const testing::CommandRun lenient =
        testing::runCli(base + " --out " + testing::shellQuoted(out));
    EXPECT_EQ(lenient.exitCode, 0) << lenient.err;
    EXPECT_NE(lenient.err.find("coref.conllu:21:"), std::string::npos) << lenient.err;
    const testing::CommandRun strict =
        testing::runCli(base + " --strict --out " + testing::shellQuoted(out));
    EXPECT_EQ(strict.exitCode, 1);
    EXPECT_NE(strict.err.find("coref.conllu:21:"), std::string::npos) << strict.err;
}

// Ctrl+C stops a run at the next window: exit code 130, one line, no output file.
TEST(CorefCli, InterruptWritesNothing) {
    if (!fs::is_regular_file(kGumDev)) {
        GTEST_SKIP() << kGumDev << " not found (the shared data folder is absent)";
    }
    // Interrupt as soon as the command says it is reading: from then on Ctrl+C ends it cleanly.
    testing::expectInterruptWritesNothing(
        testing::modelCommand("coref", kCheckpoints / "gpt2_f32", kGumDev) + " --threads 1",
        "gum.h5", "reading");
}

}  // namespace
}  // namespace attnscope
