// attnscope-cli positions end to end on generated checkpoints: usage and data errors, the
// printed table and the CSV, checked against the core's RelativePositionAccumulator run on the
// same sentences. Issue 5.
#include <cmath>
#include <filesystem>
#include <sstream>

#include <gtest/gtest.h>

#include "../support/run_command.h"
#include "../support/test_files.h"
#include "attnscope/analysis/relative_position.h"
#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/model/model.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

// Two processes running the same forward pass agree to float rounding, not bit for bit (Eigen's
// kernels depend on buffer alignment); 1e-6 is well below any difference that matters and
// far above float rounding of weights in [0, 1].
constexpr double kProcessTol = 1e-6;

std::vector<std::string> lines(const std::string& text) {
    std::istringstream in(text);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) {
        out.push_back(line);
    }
    return out;
}

std::vector<std::string> fields(const std::string& line, char sep) {
    std::vector<std::string> out;
    std::istringstream in(line);
    if (sep == ' ') {
        for (std::string f; in >> f;) {
            out.push_back(f);
        }
        return out;
    }
    for (std::string f; std::getline(in, f, sep);) {
        out.push_back(f);
    }
    return out;
}

// The core's numbers for every head over `sentences`, special tokens left out as queries.
analysis::ModelPositions expected(const fs::path& modelDir,
                                  const std::vector<std::string>& sentences) {
    const auto m = model::loadModel(modelDir);
    analysis::ModelPositions positions(m->spec.nLayers, m->spec.nHeads);
    for (const std::string& s : sentences) {
        const auto a = analysis::analyzeText(*m, s, {});
        positions.add(a.forward, analysis::specialFlags(a.tokens));
    }
    return positions;
}

// Tokens of `sentences` that are not special: the queries each head counts.
std::int64_t ordinaryTokens(const fs::path& modelDir, const std::vector<std::string>& sentences,
                            bool withSpecial = false) {
    const auto m = model::loadModel(modelDir);
    std::int64_t n = 0;
    for (const std::string& s : sentences) {
        for (const tokenize::Token& t : m->tokenizer->encode(s)) {
            n += withSpecial || !t.special ? 1 : 0;
        }
    }
    return n;
}

TEST(PositionsCli, UsageErrorsExitWithTwo) {
    const std::string bert = testing::shellQuoted(kCheckpoints / "bert_f32");
    EXPECT_EQ(testing::runCli("positions --help").exitCode, 0);
    EXPECT_NE(testing::runCli("positions --help").out.find("--sentences"), std::string::npos);
    for (const std::string& args : {
             "positions " + bert,                                           // no input
             "positions " + bert + " --text hi --sentences /etc/hostname",  // two inputs
             "positions " + bert + " --text hi --threshold 1.5",
             "positions " + bert + " --text hi --mask sideways",
         }) {
        EXPECT_EQ(testing::runCli(args).exitCode, 2) << args;
    }
}

TEST(PositionsCli, DataErrorsExitWithOne) {
    testing::ScratchDir tmp;
    const testing::CommandRun noModel = testing::runCli(
        "positions " + testing::shellQuoted(tmp.path() / "nope") + " --token-ids 1,2");
    EXPECT_EQ(noModel.exitCode, 1);
    EXPECT_NE(noModel.err.find("nope"), std::string::npos) << noModel.err;
    // A file in which no sentence can be analyzed is an error, not an empty table.
    const fs::path empty = tmp.path() / "empty.txt";
    testing::writeFile(empty, "\n\n");
    const testing::CommandRun none =
        testing::runCli("positions " + testing::shellQuoted(kCheckpoints / "bert_f32") +
                        " --sentences " + testing::shellQuoted(empty));
    EXPECT_EQ(none.exitCode, 1);
    EXPECT_NE(none.err.find("no sentence"), std::string::npos) << none.err;
    const testing::CommandRun missing =
        testing::runCli("positions " + testing::shellQuoted(kCheckpoints / "bert_f32") +
                        " --sentences " + testing::shellQuoted(tmp.path() / "none.txt"));
    EXPECT_EQ(missing.exitCode, 1);
    EXPECT_NE(missing.err.find("none.txt"), std::string::npos) << missing.err;
}

// One sentence through a causal model: r*, frequency, verdict, confidence and the means at
// offsets -2..+2 are the core's; positive offsets are "-" (masked for every query).
TEST(PositionsCli, TableIsTheCoresVerdictPerHead) {
    const fs::path gpt2 = kCheckpoints / "gpt2_f32";
    const std::string text = "Researchers compare attention heads across layers";
    const testing::CommandRun r =
        testing::runCli("positions " + testing::shellQuoted(gpt2) + " --text '" + text + "'");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto core = expected(gpt2, {text});
    const std::vector<std::string> out = lines(r.out);
    ASSERT_EQ(out.size(), 2u + static_cast<std::size_t>(core.nLayers() * core.nHeads())) << r.out;
    EXPECT_EQ(out[0].rfind("# 1 sentence, ", 0), 0u) << out[0];
    EXPECT_EQ(fields(out[1], ' '),
              (std::vector<std::string>{"layer", "head", "r*", "freq", "positional", "confidence",
                                        "mean@-2", "mean@-1", "mean@0", "mean@+1", "mean@+2"}));
    for (int layer = 0; layer < core.nLayers(); ++layer) {
        for (int head = 0; head < core.nHeads(); ++head) {
            SCOPED_TRACE(std::to_string(layer) + "-" + std::to_string(head));
            const auto& acc = core.head({layer, head});
            const auto v = acc.verdict();
            const auto f =
                fields(out[static_cast<std::size_t>(2 + layer * core.nHeads() + head)], ' ');
            ASSERT_EQ(f.size(), 11u);
            EXPECT_EQ(std::stoi(f[0]), layer);
            EXPECT_EQ(std::stoi(f[1]), head);
            EXPECT_EQ(std::stoi(f[2]), v.bestOffset);
            EXPECT_NEAR(std::stod(f[3]), v.frequency, 5e-4);
            EXPECT_EQ(f[4], v.positional ? "yes" : "no");
            EXPECT_NEAR(std::stod(f[5]), v.confidence, 5e-4);
            EXPECT_NEAR(std::stod(f[6]), acc.at(-2).meanAttention, 5e-4);
            EXPECT_NEAR(std::stod(f[7]), acc.at(-1).meanAttention, 5e-4);
            EXPECT_NEAR(std::stod(f[8]), acc.at(0).meanAttention, 5e-4);
            EXPECT_EQ(f[9], "-");
            EXPECT_EQ(f[10], "-");
        }
    }
    EXPECT_NE(r.err.find("heads are positional"), std::string::npos) << r.err;
}

// A corpus: counts summed over every sentence (not averaged per sentence), CSV at full
// precision, and a sentence too long for the model skipped and reported.
TEST(PositionsCli, SentencesFileSumsOverTheCorpusIntoCsv) {
    testing::ScratchDir tmp;
    const fs::path bert = kCheckpoints / "bert_f32";
    const std::vector<std::string> sentences = {
        "the cat sat on the mat", "attention heads look at the previous word", "a short one"};
    std::string tooLong;
    for (int i = 0; i < 600; ++i) {
        tooLong += "word ";
    }
    const fs::path file = tmp.path() / "sentences.txt";
    testing::writeFile(
        file, sentences[0] + "\n" + sentences[1] + "\n" + tooLong + "\n" + sentences[2] + "\n");
    const fs::path csv = tmp.path() / "positions.csv";
    const testing::CommandRun r =
        testing::runCli("positions " + testing::shellQuoted(bert) + " --sentences " +
                        testing::shellQuoted(file) + " --csv " + testing::shellQuoted(csv));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out.rfind("# 3 sentences, ", 0), 0u) << r.out;
    EXPECT_NE(r.err.find("skipped 1 sentences, e.g. sentence 3: "), std::string::npos) << r.err;

    const auto core = expected(bert, sentences);
    const std::int64_t queries = ordinaryTokens(bert, sentences);
    ASSERT_GT(queries, 0);
    const std::vector<std::string> rows = lines(testing::readFile(csv));
    ASSERT_EQ(rows.size(), 1u + static_cast<std::size_t>(core.nLayers() * core.nHeads()));
    EXPECT_EQ(rows[0],
              "layer,head,best_offset,frequency,positional,confidence,queries,mean_at_-2,"
              "mean_at_-1,mean_at_0,mean_at_+1,mean_at_+2");
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const auto f = fields(rows[i], ',');
        ASSERT_EQ(f.size(), 12u) << rows[i];
        const HeadId h{std::stoi(f[0]), std::stoi(f[1])};
        SCOPED_TRACE(h.toString());
        const auto& acc = core.head(h);
        const auto v = acc.verdict();
        EXPECT_EQ(std::stoi(f[2]), v.bestOffset);
        EXPECT_DOUBLE_EQ(std::stod(f[3]), v.frequency);
        EXPECT_EQ(f[4], v.positional ? "1" : "0");
        EXPECT_NEAR(std::stod(f[5]), v.confidence, kProcessTol);
        EXPECT_EQ(std::stoll(f[6]), v.queries);
        // BERT has [CLS] and [SEP] around each sentence; they are not queries.
        EXPECT_EQ(v.queries, queries);
        for (int d = -2; d <= 2; ++d) {
            EXPECT_NEAR(std::stod(f[static_cast<std::size_t>(9 + d)]), acc.at(d).meanAttention,
                        kProcessTol)
                << d;
        }
    }

    // --include-special counts [CLS] and [SEP] rows too.
    const testing::CommandRun all = testing::runCli(
        "positions " + testing::shellQuoted(bert) + " --sentences " + testing::shellQuoted(file) +
        " --include-special --max-sentences 2 --csv " + testing::shellQuoted(csv));
    ASSERT_EQ(all.exitCode, 0) << all.err;
    const std::int64_t withSpecial = ordinaryTokens(bert, {sentences[0], sentences[1]}, true);
    EXPECT_EQ(withSpecial, ordinaryTokens(bert, {sentences[0], sentences[1]}) + 4);
    EXPECT_EQ(fields(lines(testing::readFile(csv))[1], ',')[6], std::to_string(withSpecial));
}

}  // namespace
}  // namespace attnscope
