// The CSV writer: RFC 4180 quoting, number formatting, the per-head statistics table, and the
// atomic write (a failure names the file and leaves any older file as it was).
#include "attnscope/export/csv_writer.h"

#include <cmath>
#include <limits>
#include <sstream>

#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "../support/test_files.h"
#include "attnscope/base/error.h"
#include "attnscope/model/model.h"

namespace attnscope::exporting {
namespace {

namespace fs = std::filesystem;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        out.push_back(line);
    }
    return out;
}

TEST(CsvQuoted, QuotesOnlyWhatNeedsIt) {
    EXPECT_EQ(csvQuoted("plain"), "plain");
    EXPECT_EQ(csvQuoted(""), "");
    EXPECT_EQ(csvQuoted("##ing"), "##ing");
    EXPECT_EQ(csvQuoted("a,b"), "\"a,b\"");
    EXPECT_EQ(csvQuoted("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(csvQuoted("\""), "\"\"\"\"");
    EXPECT_EQ(csvQuoted("two\nlines"), "\"two\nlines\"");
    EXPECT_EQ(csvQuoted("cr\r"), "\"cr\r\"");
    EXPECT_EQ(csvQuoted(" padded"), "\" padded\"");
    EXPECT_EQ(csvQuoted("\xC2\xB7the"), "\xC2\xB7the");  // UTF-8 passes through
}

TEST(CsvField, NumbersAreShortestAndRoundTrip) {
    EXPECT_EQ(csvField(std::int64_t{-3}), "-3");
    EXPECT_EQ(csvField(0.1f), "0.1");
    EXPECT_EQ(csvField(0.1), "0.1");
    EXPECT_EQ(csvField(1.0f), "1");
    const float third = 1.0f / 3.0f;
    EXPECT_EQ(std::stof(csvField(third)), third);
    EXPECT_EQ(csvField(std::numeric_limits<float>::quiet_NaN()), "nan");
    EXPECT_EQ(csvField(std::numeric_limits<double>::infinity()), "inf");
    EXPECT_EQ(csvField(-std::numeric_limits<float>::infinity()), "-inf");
    EXPECT_EQ(csvField(std::string("a,b")), "\"a,b\"");
}

TEST(CsvWriter, HeaderThenRows) {
    CsvWriter table({"token", "count", "share"});
    table.addRow({std::string("the"), std::int64_t{2}, 0.25});
    table.addRow({std::string("\"quoted\", really"), std::int64_t{1}, 0.125f});
    EXPECT_EQ(table.rowCount(), 2u);
    EXPECT_EQ(table.columnCount(), 3u);
    EXPECT_EQ(table.text(),
              "token,count,share\n"
              "the,2,0.25\n"
              "\"\"\"quoted\"\", really\",1,0.125\n");
}

TEST(CsvWriter, RejectsRowsOfTheWrongLength) {
    CsvWriter table({"a", "b"});
    testing::expectError<InvalidArgument>([&] { table.addRow({std::int64_t{1}}); },
                                          {"row 1", "1 values", "expected 2"});
    EXPECT_EQ(table.rowCount(), 0u);
    testing::expectError<InvalidArgument>([] { CsvWriter empty({}); }, {"no columns"});
}

TEST(CsvWriter, WritesTheFile) {
    testing::ScratchDir tmp;
    CsvWriter table({"x"});
    table.addRow({std::int64_t{7}});
    const fs::path out = tmp.path() / "t.csv";
    table.writeFile(out);
    EXPECT_EQ(testing::readFile(out), "x\n7\n");
    // Writing again replaces the file and leaves no temporary file behind.
    table.addRow({std::int64_t{8}});
    table.writeFile(out);
    EXPECT_EQ(testing::readFile(out), "x\n7\n8\n");
    EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path()), fs::directory_iterator()), 1);
}

TEST(CsvWriter, MissingFolderNamesTheFile) {
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "no-such-folder" / "t.csv";
    testing::expectError<Error>([&] { CsvWriter({"x"}).writeFile(out); },
                                {out.string() + ": ", "No such file or directory"});
    EXPECT_FALSE(fs::exists(out));
}

// The rename is the last step: when it fails (here the target is a folder) nothing at the
// target changes and the temporary file is removed.
TEST(CsvWriter, AFolderAsTheTargetIsRefusedAndKept) {
    testing::ScratchDir tmp;
    const fs::path target = tmp.path() / "stats.csv";
    fs::create_directory(target);
    testing::writeFile(target / "keep.txt", "old");
    testing::expectError<Error>([&] { CsvWriter({"x"}).writeFile(target); },
                                {target.string() + ": ", "is a folder"});
    EXPECT_TRUE(fs::is_directory(target));
    EXPECT_EQ(testing::readFile(target / "keep.txt"), "old");
    EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path()), fs::directory_iterator()), 1);
}

TEST(CsvWriter, UnwritableFolderLeavesTheOldFile) {
    if (::geteuid() == 0) {
        GTEST_SKIP() << "running as root: permission bits do not stop writes";
    }
    testing::ScratchDir tmp;
    const fs::path dir = tmp.path() / "ro";
    fs::create_directory(dir);
    testing::writeFile(dir / "t.csv", "old\n");
    fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
    testing::expectError<Error>([&] { CsvWriter({"x"}).writeFile(dir / "t.csv"); },
                                {(dir / "t.csv").string() + ": ", "Permission denied"});
    fs::permissions(dir, fs::perms::owner_all);
    EXPECT_EQ(testing::readFile(dir / "t.csv"), "old\n");
}

TEST(HeadStatsTable, OneRowPerHeadWithTheDocumentedHeader) {
    std::vector<analysis::HeadStats> stats(2);
    stats[0] = {{0, 0}, 1.5f, 0.75f, 1.0f, 0.5f, 3.25f};
    stats[1] = {{0, 1}, 0.0f, std::numeric_limits<float>::quiet_NaN(), 0.875f, 0.625f, 12.0f};
    EXPECT_EQ(headStatsTable(stats).text(),
              "layer,head,mean_entropy_nats,mean_normalized_entropy,max_weight,mean_max_weight,"
              "max_abs_logit\n"
              "0,0,1.5,0.75,1,0.5,3.25\n"
              "0,1,0,nan,0.875,0.625,12\n");
}

TEST(HeadStatsCsv, AnAblatedPassSaysWhichHeadsWereAblated) {
    const auto m = model::loadModel(kCheckpoints / "gpt2_f32");
    forward::ForwardOptions o;
    o.interventions.ablations = {{1, 0, false, forward::AblationKind::Zero}};
    const auto a = analysis::analyzeIds(*m, {1, 5, 9, 14}, o);
    testing::ScratchDir tmp;
    writeHeadStatsCsv(tmp.path() / "stats.csv", a);
    const auto rows = lines(testing::readFile(tmp.path() / "stats.csv"));
    ASSERT_EQ(rows.size(), a.stats.size() + 1);
    EXPECT_EQ(rows[0].substr(rows[0].rfind(',') + 1), "ablation");
    const auto ablated = static_cast<std::size_t>(headIndex({1, 0}, a.forward.nHeads));
    for (std::size_t i = 0; i < a.stats.size(); ++i) {
        const std::string last = rows[i + 1].substr(rows[i + 1].rfind(',') + 1);
        EXPECT_EQ(last, i == ablated ? "zero" : "") << rows[i + 1];
    }
}

TEST(HeadStatsCsv, GeneratedCheckpointValuesReadBack) {
    const auto m = model::loadModel(kCheckpoints / "gpt2_f32");
    const auto a = analysis::analyzeIds(*m, {1, 5, 9, 14, 3, 7}, {});
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "stats.csv";
    writeHeadStatsCsv(out, a);
    const auto rows = lines(testing::readFile(out));
    ASSERT_EQ(rows.size(), a.stats.size() + 1);
    EXPECT_EQ(rows[0].rfind("layer,head,mean_entropy_nats,", 0), 0u) << rows[0];
    for (std::size_t i = 0; i < a.stats.size(); ++i) {
        const analysis::HeadStats& s = a.stats[i];
        std::istringstream in(rows[i + 1]);
        std::vector<std::string> f;
        for (std::string cell; std::getline(in, cell, ',');) {
            f.push_back(cell);
        }
        ASSERT_EQ(f.size(), 7u) << rows[i + 1];
        EXPECT_EQ(std::stoi(f[0]), s.head.layer);
        EXPECT_EQ(std::stoi(f[1]), s.head.head);
        EXPECT_EQ(std::stof(f[2]), s.meanEntropy) << rows[i + 1];
        EXPECT_EQ(std::stof(f[4]), s.maxWeight) << rows[i + 1];
        EXPECT_EQ(std::stof(f[6]), s.maxAbsLogit) << rows[i + 1];
    }
}

}  // namespace
}  // namespace attnscope::exporting
