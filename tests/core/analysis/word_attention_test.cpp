// Token-level → word-level attention on the golden vector of methods.md §1.1.
#include "attnscope/analysis/word_attention.h"

#include <gtest/gtest.h>

#include "attnscope/base/error.h"

namespace attnscope::analysis {
namespace {

// Six decimals, as methods.md prints the golden rows.
constexpr float kGoldenTolerance = 5e-7f;

// [CLS] the un ##believ ##able cat [SEP], A[i][j] = (1 + ((3i + 5j) mod 7)) / 28.
Matrix goldenTokenMap() {
    Matrix a(7, 7);
    for (int i = 0; i < 7; ++i) {
        for (int j = 0; j < 7; ++j) {
            a(i, j) = static_cast<float>(1 + (3 * i + 5 * j) % 7) / 28.0f;
        }
    }
    return a;
}

const std::vector<std::vector<int>> kGoldenUnits = {{0}, {1}, {2, 3, 4}, {5}, {6}};

void expectRow(const Matrix& w, int row, const std::vector<float>& expected, const char* mode) {
    for (int c = 0; c < static_cast<int>(expected.size()); ++c) {
        EXPECT_NEAR(w(row, c), expected[static_cast<std::size_t>(c)], kGoldenTolerance)
            << "mode " << mode << ", row " << row << ", column " << c;
    }
}

TEST(WordAttention, GoldenRowsAllModes) {
    const Matrix a = goldenTokenMap();
    const std::vector<float> cls = {0.035714f, 0.214286f, 0.464286f, 0.178571f, 0.107143f};

    const struct {
        FromAggregation agg;
        std::vector<float> row;
    } cases[] = {
        {FromAggregation::First, {0.250000f, 0.178571f, 0.357143f, 0.142857f, 0.071429f}},
        {FromAggregation::Mean, {0.190476f, 0.119048f, 0.428571f, 0.166667f, 0.095238f}},
        {FromAggregation::Max, {0.184211f, 0.131579f, 0.368421f, 0.184211f, 0.131579f}},
    };

    for (const auto& c : cases) {
        const std::string mode(aggregationName(c.agg));
        const Matrix w = wordAttention(a, kGoldenUnits, c.agg);
        ASSERT_EQ(w.rows(), 5);
        ASSERT_EQ(w.cols(), 5);
        expectRow(w, 2, c.row, mode.c_str());
        expectRow(w, 0, cls, mode.c_str());
        for (int r = 0; r < 5; ++r) {
            EXPECT_NEAR(w.row(r).sum(), 1.0f, 1e-6f) << "mode " << mode << ", row " << r;
        }
    }
}

TEST(WordAttention, DefaultIsMeanAndAlignmentOverloadAgrees) {
    const Matrix a = goldenTokenMap();
    WordAlignment al;
    for (const auto& t : kGoldenUnits) {
        al.units.push_back({UnitKind::Word, t, {}});
    }
    EXPECT_TRUE(wordAttention(a, kGoldenUnits)
                    .isApprox(wordAttention(a, kGoldenUnits, FromAggregation::Mean)));
    EXPECT_TRUE(wordAttention(a, al).isApprox(wordAttention(a, kGoldenUnits)));
}

TEST(WordAttention, AllZeroRowStaysZeroInMaxMode) {
    Matrix a = goldenTokenMap();
    a.row(2).setZero();
    a.row(3).setZero();
    a.row(4).setZero();
    const Matrix w = wordAttention(a, kGoldenUnits, FromAggregation::Max);
    EXPECT_EQ(w.row(2).sum(), 0.0f);
    EXPECT_FALSE(w.hasNaN());
}

TEST(WordAttention, UnitsMustPartitionTheTokens) {
    const Matrix a = goldenTokenMap();
    EXPECT_THROW(wordAttention(a, {{0}, {1}, {2, 3, 4}, {5}}), InvalidArgument);  // 6 missing
    EXPECT_THROW(wordAttention(a, {{0, 1}, {1}, {2, 3, 4}, {5}, {6}}), InvalidArgument);
    EXPECT_THROW(wordAttention(a, {{0}, {}, {1, 2, 3, 4}, {5}, {6}}), InvalidArgument);
    EXPECT_THROW(wordAttention(a, {{0}, {1}, {2, 3, 4}, {5}, {6, 7}}), InvalidArgument);
    const std::vector<std::vector<int>> three = {{0}, {1}, {2}};
    EXPECT_THROW(wordAttention(Matrix::Zero(3, 4), three), InvalidArgument);
}

}  // namespace
}  // namespace attnscope::analysis
