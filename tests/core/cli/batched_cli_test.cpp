// Corpus commands with their sentences' weight products batched (the default since issue 35:
// many shares per thread, each share's passes multiplied together with the others') write
// byte for byte the files of the unbatched run (--no-batch) and of a one-thread run, on corpora
// with sentences of very different lengths and one too long for the model.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "../support/run_command.h"
#include "../support/test_files.h"
#include "cli_corpora.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

std::string q(const fs::path& p) {
    return testing::shellQuoted(p);
}

// `command` batched on 2 threads, unbatched on 2 threads and on 1: the same file each time.
void expectBatchedEqualsUnbatched(const testing::ScratchDir& tmp, const std::string& command,
                                  const std::string& outName) {
    SCOPED_TRACE(command + " --out " + outName);
    std::string first;
    for (const std::string how :
         {"--threads 2", "--threads 2 --no-batch", "--threads 1 --no-batch", "--threads 1"}) {
        const fs::path out = tmp.path() / outName;
        fs::remove(out);
        const testing::CommandRun r = testing::runCli(command + " " + how + " --out " + q(out));
        ASSERT_EQ(r.exitCode, 0) << how << ": " << r.err;
        const std::string bytes = testing::readFile(out);
        ASSERT_FALSE(bytes.empty()) << how;
        if (first.empty()) {
            first = bytes;
        } else {
            EXPECT_TRUE(bytes == first) << how << " wrote another file than --threads 2";
        }
    }
}

TEST(BatchedCli, DepsWritesTheUnbatchedFiles) {
    testing::ScratchDir tmp;
    const fs::path ud = tmp.path() / "ud.conllu";
    testing::writeFile(ud, testing::treebank());
    const std::string deps =
        "deps " + q(kCheckpoints / "bert_f32") + " " + q(ud) + " --min-count 1";
    expectBatchedEqualsUnbatched(tmp, deps, "table.csv");
    expectBatchedEqualsUnbatched(tmp, deps, "counts.h5");
}

TEST(BatchedCli, CorefWritesTheUnbatchedFile) {
    testing::ScratchDir tmp;
    const fs::path ud = tmp.path() / "coref.conllu";
    testing::writeFile(ud, testing::corefTreebank());
    expectBatchedEqualsUnbatched(
        tmp, "coref " + q(kCheckpoints / "bert_f32") + " " + q(ud) + " --max-tokens 24",
        "heads.csv");
}

TEST(BatchedCli, SurveyWritesTheUnbatchedFile) {
    testing::ScratchDir tmp;
    const fs::path ud = tmp.path() / "ud.conllu";
    testing::writeFile(ud, testing::treebank());
    expectBatchedEqualsUnbatched(tmp, "survey " + q(kCheckpoints / "bert_f32") + " " + q(ud),
                                 "survey.csv");
}

// A causal LM restarts every ablated pass at its head's layer: the passes of different shares
// are at different layers, and still share their products and keep their bits.
TEST(BatchedCli, ImportanceWritesTheUnbatchedFile) {
    testing::ScratchDir tmp;
    const fs::path text = tmp.path() / "sentences.txt";
    testing::writeFile(text,
                       "the cat sat on the mat\na dog\nthe cat and a dog sat on the mat and the "
                       "dog sat on a cat and the mat sat on the dog and a cat\ncat\non the "
                       "mat a dog sat\nthe the the cat\n");
    expectBatchedEqualsUnbatched(tmp, "importance " + q(kCheckpoints / "gpt2_f32") + " " + q(text),
                                 "importance.csv");
}

}  // namespace
}  // namespace attnscope
