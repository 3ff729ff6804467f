// attnscope-cli dla, lens, patch, circuits and generate end to end (issue 34): their CSV files
// against the core on the same tokens, the identities they print, and their refusals.
#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "../support/csv_fields.h"
#include "../support/run_command.h"
#include "../support/test_files.h"
#include "attnscope/analysis/activation_patching.h"
#include "attnscope/analysis/logit_attribution.h"
#include "attnscope/analysis/logit_lens.h"
#include "attnscope/analysis/weight_circuits.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/generation.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";
const std::vector<std::int32_t> kIds = {2, 17, 40, 9, 33, 5};

std::string idList() {
    std::string out;
    for (const std::int32_t id : kIds) {
        if (!out.empty()) {
            out += ',';
        }
        out += std::to_string(id);
    }
    return out;
}

forward::ForwardResult pass(const model::Model& m) {
    forward::ForwardOptions o;
    o.keepLayerStates = true;
    return forward::runForward(m, {kIds, {}}, o);
}

std::vector<std::vector<std::string>> csvRows(const fs::path& path) {
    std::ifstream in(path);
    std::vector<std::vector<std::string>> rows;
    for (std::string line; std::getline(in, line);) {
        rows.push_back(testing::csvFields(line));
    }
    return rows;
}

TEST(DlaCli, CsvIsTheCoresTermsAndTheyAddUp) {
    testing::ScratchDir tmp;
    const fs::path gpt2 = kCheckpoints / "gpt2_f32";
    const fs::path csv = tmp.path() / "dla.csv";
    const auto run = testing::runCli("dla " + testing::shellQuoted(gpt2) + " --token-ids " +
                                     idList() + " --position 3 --target-id 7 --distractor-id 11 " +
                                     "--out " + testing::shellQuoted(csv));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(testing::contains(run.out, "# position 3")) << run.out;
    EXPECT_TRUE(testing::contains(run.out, "terms add up to")) << run.out;
    const auto m = model::loadModel(gpt2);
    const auto r = pass(*m);
    const auto a = analysis::directLogitAttribution(*m, r, 3, 7, 11);
    const auto rows = csvRows(csv);
    ASSERT_EQ(rows.size(), a.terms.size() + 1);
    EXPECT_EQ(rows[0], (std::vector<std::string>{"term", "kind", "layer", "head", "value"}));
    for (std::size_t t = 0; t < a.terms.size(); ++t) {
        EXPECT_EQ(rows[t + 1][0], a.terms[t].name());
        EXPECT_NEAR(std::stod(rows[t + 1][4]), a.terms[t].value, 1e-5);
    }
}

TEST(DlaCli, RefusesPostLnModelsAndUnknownPieces) {
    const std::string bert = testing::shellQuoted(kCheckpoints / "bert_f32");
    const auto refused = testing::runCli("dla " + bert + " --token-ids 2,9,14");
    EXPECT_EQ(refused.exitCode, 1);
    EXPECT_TRUE(testing::contains(refused.err, "post-LN models")) << refused.err;
    const std::string gpt2 = testing::shellQuoted(kCheckpoints / "gpt2_f32");
    const auto piece = testing::runCli("dla " + gpt2 + " --token-ids 2,9 --target zzzqqq");
    EXPECT_EQ(piece.exitCode, 1);
    EXPECT_TRUE(testing::contains(piece.err, "--target: 'zzzqqq' is not a piece")) << piece.err;
    const auto far = testing::runCli("dla " + gpt2 + " --token-ids 2,9 --position 2");
    EXPECT_EQ(far.exitCode, 1);
    EXPECT_TRUE(testing::contains(far.err, "--position: 2 is past the last of 2 tokens"));
}

TEST(LensCli, CsvIsTheCoresLensOnAMaskedLm) {
    testing::ScratchDir tmp;
    const fs::path bert = kCheckpoints / "bert_f32";
    const fs::path csv = tmp.path() / "lens.csv";
    const auto run = testing::runCli("lens " + testing::shellQuoted(bert) + " --token-ids " +
                                     idList() + " --top 2 --out " + testing::shellQuoted(csv));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(testing::contains(run.out, "embed")) << run.out;
    const auto m = model::loadModel(bert);
    const auto lens = analysis::logitLens(*m, pass(*m), 2);
    const auto rows = csvRows(csv);
    ASSERT_EQ(rows.size(), 1 + static_cast<std::size_t>(lens.nStages * lens.nTokens * 2));
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const int stage = std::stoi(rows[i][0]);
        const int position = std::stoi(rows[i][2]);
        const int rank = std::stoi(rows[i][3]);
        const analysis::LensCell& c = lens.at(stage, position);
        EXPECT_EQ(std::stoi(rows[i][4]), c.top[static_cast<std::size_t>(rank - 1)].id);
        EXPECT_NEAR(std::stod(rows[i][6]), c.top[static_cast<std::size_t>(rank - 1)].probability,
                    1e-6);
        EXPECT_EQ(std::stoi(rows[i][9]), c.targetRank);
    }
}

TEST(PatchCli, CsvIsTheCoresSweepAndPath) {
    testing::ScratchDir tmp;
    const fs::path gpt2 = kCheckpoints / "gpt2_f32";
    const fs::path csv = tmp.path() / "patch.csv";
    const auto run = testing::runCli(
        "patch " + testing::shellQuoted(gpt2) + " --clean-ids 2,17,40,9,33,5 --corrupted-ids " +
        "2,17,41,9,33,5 --target-id 7 --distractor-id 11 --by head --by resid --path " +
        "'0-1->1-0,1-2:k' --out " + testing::shellQuoted(csv));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(testing::contains(run.out, "# head patching (denoise)")) << run.out;
    EXPECT_TRUE(testing::contains(run.out, "path 0-1->1-0,1-2:k (denoise): metric")) << run.out;
    const auto m = model::loadModel(gpt2);
    const analysis::PatchingBase base =
        analysis::runPatchingBase(*m, {{2, 17, 40, 9, 33, 5}, {2, 17, 41, 9, 33, 5}, 7, 11, 5}, {});
    const auto heads = analysis::patchSweep(*m, base, analysis::PatchSweep::Head,
                                            analysis::PatchDirection::Denoise);
    const auto rows = csvRows(csv);
    ASSERT_EQ(rows[0], (std::vector<std::string>{"experiment", "direction", "layer", "head",
                                                 "position", "path", "ld", "metric"}));
    // head: 2 x 3, resid: 2 x 6, one path.
    ASSERT_EQ(rows.size(), 1u + 6u + 12u + 1u);
    for (std::size_t i = 0; i < 6; ++i) {
        EXPECT_EQ(rows[i + 1][0], "head");
        EXPECT_NEAR(std::stod(rows[i + 1][6]), heads.ld[i], 1e-9);
    }
    // Paths follow --direction, whose default is denoise.
    const auto path = analysis::pathPatch(
        *m, base, analysis::parsePathSpec("0-1->1-0,1-2:k", analysis::PatchDirection::Denoise));
    EXPECT_EQ(rows.back()[5], "0-1->1-0,1-2:k (denoise)");
    EXPECT_NEAR(std::stod(rows.back()[6]), path.ld, 1e-9);
}

TEST(PatchCli, RefusesPromptsOfDifferentLengthsAndBadPaths) {
    const std::string gpt2 = testing::shellQuoted(kCheckpoints / "gpt2_f32");
    const auto lengths =
        testing::runCli("patch " + gpt2 + " --clean-ids 2,9,4 --corrupted-ids 2,9");
    EXPECT_EQ(lengths.exitCode, 1);
    EXPECT_TRUE(testing::contains(lengths.err, "--corrupted: 2 tokens, but the clean prompt has 3"))
        << lengths.err;
    const auto path = testing::runCli("patch " + gpt2 +
                                      " --clean-ids 2,9 --corrupted-ids 2,8 --path '1-0->0-1:q'");
    EXPECT_EQ(path.exitCode, 1);
    EXPECT_TRUE(testing::contains(path.err, "receiver 0-1 is not in a layer after every sender"))
        << path.err;
    const auto syntax =
        testing::runCli("patch " + gpt2 + " --clean-ids 2,9 --corrupted-ids 2,8 --path '0-1'");
    EXPECT_EQ(syntax.exitCode, 1);
    EXPECT_TRUE(testing::contains(syntax.err, "--path: path '0-1': expected")) << syntax.err;
}

TEST(CircuitsCli, CsvIsTheCoresScores) {
    testing::ScratchDir tmp;
    const fs::path gpt2 = kCheckpoints / "gpt2_f32";
    const fs::path csv = tmp.path() / "circuits.csv";
    const auto run = testing::runCli("circuits " + testing::shellQuoted(gpt2) + " --out " +
                                     testing::shellQuoted(csv));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(testing::contains(run.out, "K-composition, strongest")) << run.out;
    const auto w = analysis::weightCircuits(*model::loadModel(gpt2));
    int copying = 0;
    for (const auto& row : csvRows(csv)) {
        if (row[0] == "copying") {
            const auto h =
                static_cast<std::size_t>(std::stoi(row[1]) * w.nHeads + std::stoi(row[2]));
            EXPECT_NEAR(std::stod(row[6]), w.heads[h].copying, 1e-12);
            ++copying;
        }
        if (row[0] == "comp_k" && row[1] == "0" && row[2] == "1" && row[4] == "1" &&
            row[5] == "2") {
            EXPECT_NEAR(std::stod(row[6]), w.composition(w.compK, 1, 5), 1e-12);
        }
    }
    EXPECT_EQ(copying, w.nLayers * w.nHeads);
}

TEST(GenerateCli, CsvHoldsEveryStepsRows) {
    testing::ScratchDir tmp;
    const fs::path gpt2 = kCheckpoints / "gpt2_f32";
    const fs::path csv = tmp.path() / "generate.csv";
    const auto run =
        testing::runCli("generate " + testing::shellQuoted(gpt2) +
                        " --token-ids 2,17,40 --steps 3 --out " + testing::shellQuoted(csv));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const auto g = forward::generate(*model::loadModel(gpt2), {2, 17, 40}, 3);
    const auto rows = csvRows(csv);
    // 2 layers x 3 heads, rows of 3, 4 and 5 keys.
    ASSERT_EQ(rows.size(), 1u + 6u * (3u + 4u + 5u));
    EXPECT_EQ(std::stoi(rows.back()[1]), g.steps.back().token);
    EXPECT_NEAR(std::stod(rows.back()[7]), g.steps.back().rows.back(), 1e-7);
    const auto bert = testing::runCli(
        "generate " + testing::shellQuoted(kCheckpoints / "bert_f32") + " --token-ids 2,9");
    EXPECT_EQ(bert.exitCode, 1);
    EXPECT_TRUE(testing::contains(bert.err, "generation needs a causal LM")) << bert.err;
}

}  // namespace
}  // namespace attnscope
