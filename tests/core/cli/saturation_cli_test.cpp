// attnscope-cli saturation end to end (issue 33) on a Qwen3 checkpoint with QK-norm: usage and
// data errors, and its CSV and HDF5 files against the core's saturation statistics of the same
// sentences, the model as it is and under the what-if.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "../support/csv_fields.h"
#include "../support/h5_reader.h"
#include "../support/run_command.h"
#include "../support/test_files.h"
#include "attnscope/analysis/saturation.h"
#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/model/model.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;
using analysis::HeadSaturation;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";
const fs::path kQwen3 = kCheckpoints / "qwen3_gqa_qknorm_f32";

// Two processes agree to float rounding, not bit for bit (kernels depend on alignment).
constexpr double kProcessTol = 1e-5;

std::vector<HeadSaturation> expected(const std::vector<std::string>& sentences,
                                     const forward::ForwardOptions& options) {
    const auto m = model::loadModel(kQwen3);
    analysis::SaturationAccumulator acc;
    for (const std::string& s : sentences) {
        const std::vector<std::int32_t> ids = tokenize::ids(m->tokenizer->encode(s));
        acc.add(forward::runForward(*m, {ids, {}}, options));
    }
    return acc.result();
}

void expectNear(double actual, double want, const std::string& what) {
    EXPECT_NEAR(actual, want, kProcessTol * std::max(1.0, std::abs(want))) << what;
}

TEST(SaturationCli, UsageAndDataErrors) {
    const std::string qwen = testing::shellQuoted(kQwen3);
    EXPECT_EQ(testing::runCli("saturation --help").exitCode, 0);
    EXPECT_EQ(testing::runCli("saturation " + qwen).exitCode, 2);  // no input
    EXPECT_EQ(testing::runCli("saturation " + qwen + " --token-ids 1,2 --out x.json").exitCode, 2);
    const auto bad = testing::runCli("saturation " + qwen + " --token-ids 1,2 --what-if qk=off");
    EXPECT_EQ(bad.exitCode, 1);
    EXPECT_TRUE(testing::contains(bad.err, "what-if 'qk=off': unknown key 'qk'")) << bad.err;
    const auto cap =
        testing::runCli("saturation " + qwen + " --token-ids 1,2 --what-if softcap=-1");
    EXPECT_EQ(cap.exitCode, 1);
    EXPECT_TRUE(testing::contains(cap.err, "'-1' is not a positive number")) << cap.err;
}

TEST(SaturationCli, CsvMatchesTheCoreForTheModelAndTheWhatIf) {
    testing::ScratchDir tmp;
    const std::vector<std::string> sentences = {"the cat sat on the mat", "a dog ran far away"};
    const fs::path file = tmp.path() / "sentences.txt";
    std::ofstream(file) << sentences[0] << "\n" << sentences[1] << "\n";
    const fs::path csv = tmp.path() / "saturation.csv";
    const auto run =
        testing::runCli("saturation " + testing::shellQuoted(kQwen3) + " --sentences " +
                        testing::shellQuoted(file) + " --what-if qk-norm=unit,softcap=3 --out " +
                        testing::shellQuoted(csv));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(testing::contains(run.out, "# 2 sentences; what-if: qk-norm=unit, softcap=3"))
        << run.out;
    forward::ForwardOptions plain;
    plain.recordUnnormed = true;
    forward::ForwardOptions changed = plain;
    changed.whatIf.qkNorm = forward::QkNormChoice::Unit;
    changed.whatIf.softcap = 3.0f;
    const auto asIs = expected(sentences, plain);
    const auto withWhatIf = expected(sentences, changed);
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line,
              "setting,layer,head,rows,mean_entropy,max_abs_unnormed,max_abs_scaled,"
              "max_abs_logit,mean_row_max_abs_logit,one_hot_share,one_hot_rows");
    std::size_t rows = 0;
    for (; std::getline(in, line); ++rows) {
        const auto f = testing::csvFields(line);
        ASSERT_EQ(f.size(), 11u) << line;
        const bool model = f[0] == "model";
        const auto& heads = model ? asIs : withWhatIf;
        const std::size_t i = model ? rows : rows - asIs.size();
        ASSERT_LT(i, heads.size()) << line;
        const HeadSaturation& h = heads[i];
        EXPECT_EQ(std::stoi(f[1]), h.head.layer) << line;
        EXPECT_EQ(std::stoi(f[2]), h.head.head) << line;
        EXPECT_EQ(std::stoll(f[3]), h.rows) << line;
        expectNear(std::stod(f[4]), h.meanEntropy, line);
        expectNear(std::stod(f[5]), h.maxAbsUnnormed, line);
        expectNear(std::stod(f[6]), h.maxAbsScaled, line);
        expectNear(std::stod(f[7]), h.maxAbsLogit, line);
        EXPECT_EQ(std::stoll(f[10]), h.oneHotRows) << line;
    }
    EXPECT_EQ(rows, asIs.size() + withWhatIf.size());
    // The cap bites: the what-if's logits stay below it, the scaled ones need not.
    for (const HeadSaturation& h : withWhatIf) {
        EXPECT_LT(h.maxAbsLogit, 3.0f);
    }
}

TEST(SaturationCli, Hdf5KeepsOneSentencesRows) {
    testing::ScratchDir tmp;
    const fs::path h5 = tmp.path() / "saturation.h5";
    const auto run = testing::runCli("saturation " + testing::shellQuoted(kQwen3) +
                                     " --text 'the cat sat on the mat' --what-if qk-norm=off "
                                     "--out " +
                                     testing::shellQuoted(h5));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const testing::H5Reader f(h5);
    ASSERT_TRUE(f.ok());
    const auto m = model::loadModel(kQwen3);
    const std::vector<std::int32_t> ids =
        tokenize::ids(m->tokenizer->encode("the cat sat on the mat"));
    const auto heads = static_cast<hsize_t>(m->spec.nLayers * m->spec.nHeads);
    for (const char* group : {"model", "what_if"}) {
        const std::string base = std::string(group) + "/";
        EXPECT_EQ(f.dims((base + "max_abs_logit").c_str()),
                  (std::vector<hsize_t>{static_cast<hsize_t>(m->spec.nLayers),
                                        static_cast<hsize_t>(m->spec.nHeads)}));
        EXPECT_EQ(f.dims((base + "row_max_abs_unnormed").c_str()),
                  (std::vector<hsize_t>{static_cast<hsize_t>(m->spec.nLayers),
                                        static_cast<hsize_t>(m->spec.nHeads), ids.size()}));
        EXPECT_EQ(f.values<std::int64_t>((base + "rows").c_str(), H5T_NATIVE_INT64).size(), heads);
    }
    EXPECT_EQ(f.text("what_if"), "qk-norm=off");
    EXPECT_EQ(f.text("input"), "--text");
    // Off: the unnormed maxima are the scaled ones, row by row.
    EXPECT_EQ(f.values<float>("what_if/row_max_abs_unnormed", H5T_NATIVE_FLOAT),
              f.values<float>("what_if/row_max_abs_scaled", H5T_NATIVE_FLOAT));
    forward::ForwardOptions plain;
    plain.recordUnnormed = true;
    const auto r = forward::runForward(*m, {ids, {}}, plain);
    const auto rows = f.values<float>("model/row_max_abs_unnormed", H5T_NATIVE_FLOAT);
    ASSERT_EQ(rows.size(), r.rowMaxAbsUnnormed.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        expectNear(rows[i], r.rowMaxAbsUnnormed[i], "row " + std::to_string(i));
    }
}

}  // namespace
}  // namespace attnscope
