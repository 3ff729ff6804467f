// ExactSum (issue 35): the sum of floats is exact and rounded once, so it does not depend on the
// order of additions or on how the values are split into partial sums and merged.
#include "attnscope/analysis/exact_sum.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace attnscope::analysis {
namespace {

ExactSum sumOf(const std::vector<float>& values) {
    ExactSum s;
    for (const float v : values) {
        s.add(v);
    }
    return s;
}

TEST(ExactSum, OrderAndSplitDoNotChangeTheBits) {
    std::mt19937 rng(35);
    std::uniform_real_distribution<float> weight(0.0f, 1.0f);
    std::vector<float> values;
    for (int i = 0; i < 5000; ++i) {
        // Attention weights of every size, subnormals included.
        values.push_back(std::ldexp(weight(rng), -static_cast<int>(rng() % 140)));
    }
    const ExactSum whole = sumOf(values);
    std::vector<float> shuffled = values;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    EXPECT_EQ(sumOf(shuffled), whole);
    EXPECT_EQ(sumOf(shuffled).value(), whole.value());
    // Three shards, every third value, merged in any order.
    std::vector<ExactSum> shards(3);
    for (std::size_t i = 0; i < values.size(); ++i) {
        shards[i % 3].add(values[i]);
    }
    ExactSum merged = shards[2];
    merged.add(shards[0]);
    merged.add(shards[1]);
    EXPECT_EQ(merged, whole);
    // A double accumulator is not order-independent on the same values (why ExactSum exists).
    double forward = 0;
    double backward = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        forward += values[i];
        backward += values[values.size() - 1 - i];
    }
    EXPECT_NEAR(forward, whole.value(), 1e-12);
    EXPECT_NEAR(backward, whole.value(), 1e-12);
}

TEST(ExactSum, SignedValuesCancelExactlyInAnyOrder) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::vector<float> values;
    for (int i = 0; i < 2000; ++i) {
        // Magnitudes from 2^-140 to 2^100, so carries and borrows cross every limb.
        values.push_back(std::ldexp(value(rng), static_cast<int>(rng() % 240) - 140));
    }
    std::vector<float> both = values;
    for (const float v : values) {
        both.push_back(-v);
    }
    std::shuffle(both.begin(), both.end(), rng);
    EXPECT_EQ(sumOf(both), ExactSum());
    EXPECT_EQ(sumOf(both).value(), 0.0);
    both.push_back(0.5f);
    std::shuffle(both.begin(), both.end(), rng);
    EXPECT_EQ(sumOf(both).value(), 0.5);
    std::vector<float> reversed(values.rbegin(), values.rend());
    EXPECT_EQ(sumOf(reversed), sumOf(values));
}

TEST(ExactSum, RoundsOnceToNearest) {
    // 1 + 2^-53 + 2^-100 lies above the midpoint between 1 and the next double: a double
    // accumulator rounds 1 + 2^-53 down to 1 (ties to even) and ends at 1.
    ExactSum s;
    s.add(1.0f);
    s.add(std::ldexp(1.0f, -53));
    s.add(std::ldexp(1.0f, -100));
    EXPECT_EQ(s.value(), 1.0 + std::ldexp(1.0, -52));
    // Exactly at the midpoint: ties to even.
    ExactSum tie;
    tie.add(1.0f);
    tie.add(std::ldexp(1.0f, -53));
    EXPECT_EQ(tie.value(), 1.0);
    // The smallest subnormal survives cancellation of large values.
    ExactSum cancel;
    cancel.add(3.0e38f);
    cancel.add(std::numeric_limits<float>::denorm_min());
    cancel.add(-3.0e38f);
    EXPECT_EQ(cancel.value(), static_cast<double>(std::numeric_limits<float>::denorm_min()));
    ExactSum negative;
    negative.add(-0.25f);
    negative.add(0.125f);
    EXPECT_EQ(negative.value(), -0.125);
    EXPECT_EQ(ExactSum().value(), 0.0);
}

TEST(ExactSum, NonFiniteValuesPoisonTheSum) {
    ExactSum inf;
    inf.add(1.0f);
    inf.add(std::numeric_limits<float>::infinity());
    EXPECT_EQ(inf.value(), std::numeric_limits<double>::infinity());
    EXPECT_EQ(inf.toText(), "inf");
    ExactSum nan = inf;
    nan.add(-std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(nan.value()));
    EXPECT_EQ(nan.toText(), "nan");
}

TEST(ExactSum, TextRoundTripsAndRefusesAnythingElse) {
    ExactSum s;
    s.add(0.75f);
    s.add(-1e-30f);
    ExactSum back;
    ASSERT_TRUE(ExactSum::fromText(s.toText(), back));
    EXPECT_EQ(back, s);
    EXPECT_EQ(ExactSum().toText(), "0");
    ExactSum one;
    one.add(std::numeric_limits<float>::denorm_min());
    EXPECT_EQ(one.toText(), "1");
    ExactSum out;
    for (const char* bad : {"", "00", "0x1", "G", "1.5", "-1", "Inf", " 1"}) {
        EXPECT_FALSE(ExactSum::fromText(bad, out)) << bad;
    }
    EXPECT_FALSE(ExactSum::fromText(std::string(97, 'f'), out));
    EXPECT_TRUE(ExactSum::fromText(std::string(96, 'f'), out));  // -1 unit, two's complement
    EXPECT_EQ(out.value(), -static_cast<double>(std::numeric_limits<float>::denorm_min()));
}

}  // namespace
}  // namespace attnscope::analysis
