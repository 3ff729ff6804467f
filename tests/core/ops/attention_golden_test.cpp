// The attention primitive against golden cases computed in float64 with PyTorch
// (tests/reference/sdpa_goldens.py -> tests/data/sdpa/<case>/case.json).
#include <filesystem>
#include <fstream>
#include <limits>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/test_names.h"
#include "attnscope/ops/attention.h"

namespace attnscope::ops {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The product's promise for probabilities; fp32 against an fp64 reference.
constexpr float kTolerance = 1e-5f;

const fs::path kCases = fs::path(ATTNSCOPE_TEST_DATA_DIR) / "sdpa";

std::vector<std::string> caseNames() {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(kCases)) {
        names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

// JSON null stands for -inf (JSON has no infinities).
Matrix matrix(const json& rows) {
    Matrix m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows[0].size()));
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
        for (Eigen::Index c = 0; c < m.cols(); ++c) {
            const json& v = rows[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
            m(r, c) = v.is_null() ? -std::numeric_limits<float>::infinity() : v.get<float>();
        }
    }
    return m;
}

class AttentionGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(AttentionGolden, MatchesPyTorch) {
    std::ifstream in(kCases / GetParam() / "case.json");
    ASSERT_TRUE(in) << GetParam();
    const json c = json::parse(in);
    AttentionOptions o;
    if (!c["scale"].is_null()) {
        o.scale = c["scale"].get<float>();
    }
    o.mask.causal = c["causal"].get<bool>();
    if (!c["causal_offset"].is_null()) {
        o.mask.causalOffset = c["causal_offset"].get<int>();
    }
    if (!c["bool_mask"].is_null()) {
        o.mask.allowed = matrix(c["bool_mask"]).cast<std::uint8_t>();
    }
    if (!c["float_mask"].is_null()) {
        o.mask.additive = matrix(c["float_mask"]);
    }
    const auto r = attention(matrix(c["q"]), matrix(c["k"]), matrix(c["v"]), o);
    const std::string what = GetParam() + ": " + c["description"].get<std::string>();
    const Matrix expectedLogits = matrix(c["expected_logits"]);
    EXPECT_LE((r.logits - expectedLogits).cwiseAbs().maxCoeff(),
              kTolerance * std::max(1.0f, expectedLogits.cwiseAbs().maxCoeff()))
        << what;
    EXPECT_LE((r.probs - matrix(c["expected_probs"])).cwiseAbs().maxCoeff(), kTolerance) << what;
    EXPECT_LE((r.output - matrix(c["expected_output"])).cwiseAbs().maxCoeff(), kTolerance) << what;
    EXPECT_EQ(r.fullyMaskedRows, c["fully_masked_rows"].get<std::vector<int>>()) << what;
    EXPECT_FALSE(r.probs.hasNaN() || r.output.hasNaN()) << what;
}

INSTANTIATE_TEST_SUITE_P(Sdpa, AttentionGolden, ::testing::ValuesIn(caseNames()),
                         testing::paramName);

}  // namespace
}  // namespace attnscope::ops
