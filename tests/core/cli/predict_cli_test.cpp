// attnscope-cli predict end to end: its top-5 tokens and probabilities at every position agree
// with the PyTorch reference's prediction-head logits (tests/reference/lm_heads.py) on the
// generated Llama-family, GPT-2 and BERT checkpoints. Issue 5.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <sstream>

#include <gtest/gtest.h>

#include "../support/csv_fields.h"
#include "../support/reference_file.h"
#include "../support/run_command.h"
#include "../support/test_files.h"
#include "../support/test_names.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

struct Row {
    int position;
    int rank;
    int id;
    double probability;
};

std::vector<Row> readPredictions(const fs::path& csv) {
    std::istringstream in(testing::readFile(csv));
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "position,token,predicts,rank,id,candidate,probability,logit");
    std::vector<Row> rows;
    while (std::getline(in, line)) {
        const auto f = testing::csvFields(line);
        EXPECT_EQ(f.size(), 8u) << line;
        if (f.size() == 8) {
            rows.push_back({std::stoi(f[0]), std::stoi(f[3]), std::stoi(f[4]), std::stod(f[6])});
        }
    }
    return rows;
}

class PredictCli : public ::testing::TestWithParam<std::string> {};

TEST_P(PredictCli, TopFiveMatchesPyTorchReference) {
    const fs::path dir = kCheckpoints / GetParam();
    const auto ref = testing::readReference(dir / "reference_2.safetensors");
    ASSERT_FALSE(ref.lmLogits.empty()) << "the reference has no prediction-head logits";
    const std::size_t n = ref.inputIds.size();
    const std::size_t vocab = ref.lmLogits.size() / n;
    std::string ids;
    std::string positions;  // all: a masked LM is asked explicitly (the input has no [MASK])
    for (std::size_t i = 0; i < n; ++i) {
        ids.append(i ? "," : "").append(std::to_string(ref.inputIds[i]));
        positions.append(i ? "," : "").append(std::to_string(i));
    }
    const testing::ScratchFile csv("predictions.csv");
    const auto r =
        testing::runCli("predict " + testing::shellQuoted(dir) + " --token-ids " + ids +
                        " --position " + positions + " --top 5 --csv " + testing::shellQuoted(csv));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const std::vector<Row> rows = readPredictions(csv);
    ASSERT_EQ(rows.size(), 5 * n);
    for (std::size_t pos = 0; pos < n; ++pos) {
        const float* logits = ref.lmLogits.data() + pos * vocab;
        std::vector<int> order(vocab);
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](int a, int b) { return logits[a] > logits[b]; });
        const float top = logits[order[0]];
        double sum = 0.0;
        for (std::size_t v = 0; v < vocab; ++v) {
            sum += std::exp(static_cast<double>(logits[v] - top));
        }
        for (int rank = 0; rank < 5; ++rank) {
            const Row& row = rows[pos * 5 + static_cast<std::size_t>(rank)];
            ASSERT_EQ(row.position, static_cast<int>(pos));
            ASSERT_EQ(row.rank, rank + 1);
            // Ranks are compared only where the reference's own order is not a near-tie.
            const float gap = logits[order[static_cast<std::size_t>(rank)]] -
                              logits[order[static_cast<std::size_t>(rank) + 1]];
            if (gap > 1e-3f * std::max(1.0f, std::abs(top))) {
                EXPECT_EQ(row.id, order[static_cast<std::size_t>(rank)])
                    << GetParam() << " position " << pos << " rank " << rank + 1;
            }
            const double expected = std::exp(static_cast<double>(logits[row.id] - top)) / sum;
            EXPECT_NEAR(row.probability, expected, 1e-5)
                << GetParam() << " position " << pos << " rank " << rank + 1;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Checkpoints, PredictCli,
                         ::testing::Values("llama_f32", "llama_gqa2_headdim_bf16",
                                           "llama3_gqa4_f32", "mistral_mqa_window_f32",
                                           "qwen2_gqa2_bf16", "gpt2_f32", "bert_f32", "roberta_f32",
                                           "distilbert_f16"),
                         testing::paramName);

TEST(PredictCliErrors, ModelWithoutAHeadIsAClearDataError) {
    const auto r =
        testing::runCli("predict " + testing::shellQuoted(kCheckpoints / "bert_noprefix_f16") +
                        " --token-ids 2,5,3");
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("no prediction head"), std::string::npos) << r.err;
}

TEST(PredictCliErrors, PositionOutsideTheSentence) {
    const auto r = testing::runCli("predict " + testing::shellQuoted(kCheckpoints / "llama_f32") +
                                   " --token-ids 2,5,3 --position 3");
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("--position: 3"), std::string::npos) << r.err;
}

TEST(PredictCliErrors, MaskedLmPredictsAtTheMaskTokenByDefault) {
    const auto r = testing::runCli("predict " + testing::shellQuoted(kCheckpoints / "bert_f32") +
                                   " --text 'the [MASK] sat'");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("masked LM"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[MASK]"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("  the\n"), std::string::npos) << "only the mask position: " << r.out;
}

}  // namespace
}  // namespace attnscope
