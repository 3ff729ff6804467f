// Sentence lists from .txt and CoNLL-U files.
#include "attnscope/text/sentence_file.h"

#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "../support/test_files.h"
#include "attnscope/base/error.h"
#include "attnscope/text/conllu.h"

namespace attnscope::text {
namespace {

TEST(SentenceFile, PlainTextOneSentencePerLine) {
    testing::ScratchDir dir;
    testing::writeFile(dir.path() / "s.txt", "The cat sat.\r\n\n  \nDogs bark.\n");
    EXPECT_EQ(readSentences(dir.path() / "s.txt"),
              (std::vector<std::string>{"The cat sat.", "Dogs bark."}));
}

TEST(SentenceFile, ConlluTextCommentsOrForms) {
    testing::ScratchDir dir;
    testing::writeFile(dir.path() / "t.conllu",
                       "# sent_id = 1\n# text = I can't go.\n"
                       "1\tI\tI\tPRON\t_\t_\t3\tnsubj\t_\t_\n"
                       "2-3\tcan't\t_\t_\t_\t_\t_\t_\t_\t_\n"
                       "\n"
                       "1\tHello\thello\tINTJ\t_\t_\t0\troot\t_\tSpaceAfter=No\n"
                       "2\t!\t!\tPUNCT\t_\t_\t1\tpunct\t_\t_\n"
                       "\n"
                       "1\tWe\twe\tPRON\t_\t_\t0\troot\t_\t_\n"
                       "2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n"
                       "2\tdo\tdo\tAUX\t_\t_\t1\taux\t_\t_\n"
                       "3\tn't\tnot\tPART\t_\t_\t1\tadvmod\t_\t_\n"
                       "3.1\tgo\tgo\tVERB\t_\t_\t_\t_\t_\t_\n"
                       "4\tstop\tstop\tVERB\t_\t_\t1\tobj\t_\t_\n");
    EXPECT_EQ(readSentences(dir.path() / "t.conllu"),
              (std::vector<std::string>{"I can't go.", "Hello!", "We don't stop"}));
}

TEST(SentenceFile, ErrorsNameFileAndLine) {
    testing::ScratchDir dir;
    testing::writeFile(dir.path() / "bad.conllu", "# text = x\n1\tx\tx\n");
    testing::expectError<FormatError>([&] { readSentences(dir.path() / "bad.conllu"); },
                                      {"bad.conllu:2", "10 tab-separated columns, found 3"});
    testing::writeFile(dir.path() / "bin.txt", "ok\nab\xff\n");
    testing::expectError<FormatError>([&] { readSentences(dir.path() / "bin.txt"); },
                                      {"bin.txt:2", "UTF-8"});
    testing::expectError<FormatError>([&] { readSentences(dir.path() / "none.txt"); },
                                      {"none.txt", "cannot open"});
}

// Issue 30: a 5 MB line was read whole and tokenized as one sentence (gigabytes, seconds); now
// it is refused with its length, in both kinds of file, and never held whole in memory.
TEST(SentenceFile, OverlongLinesAreRefused) {
    testing::ScratchDir dir;
    const std::string huge(5'000'000, 'a');
    testing::writeFile(dir.path() / "long.txt", "Fine.\n" + huge + "\nAlso fine.\n");
    testing::expectError<FormatError>(
        [&] { readSentences(dir.path() / "long.txt"); },
        {"long.txt:2: the line is 5000000 bytes long, more than the 65536 a sentence line may "
         "have"});
    testing::writeFile(dir.path() / "long.conllu", "# text = " + huge + "\n");
    testing::expectError<FormatError>([&] { readSentences(dir.path() / "long.conllu"); },
                                      {"long.conllu:1: the line is 5000009 bytes long"});
    const std::string longest(kMaxConlluLineBytes, 'b');  // the limit itself is allowed
    testing::writeFile(dir.path() / "edge.txt", longest + "\n");
    EXPECT_EQ(readSentences(dir.path() / "edge.txt"), std::vector<std::string>{longest});
}

TEST(SentenceFile, RealTreebankWhenShared) {
    const auto ewt =
        std::filesystem::path(ATTNSCOPE_SHARED_DIR) / "data/ud/UD_English-EWT/en_ewt-ud-dev.conllu";
    if (!std::filesystem::exists(ewt)) {
        GTEST_SKIP() << "shared data not found at " << ewt;
    }
    const auto sentences = readSentences(ewt);
    EXPECT_EQ(sentences.size(), 2001u);
}

}  // namespace
}  // namespace attnscope::text
