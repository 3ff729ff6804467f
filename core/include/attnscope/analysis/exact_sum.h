// An exact sum of floats whose value does not depend on the order of the additions.
//
// Why: corpus statistics summed sentence by sentence (relative_position.h's mean attention by
// offset) must come out the same whether one process sums the whole corpus or N shards sum
// their parts and the parts are merged (issue 35). A double accumulator rounds after every
// addition, so ((a + b) + c) + d and (a + c) + (b + d) may differ in the last bit. Here every
// finite float is added as the integer it is in units of 2^-149 (the smallest float
// subnormal) into a 384-bit two's-complement fixed-point number: a float is at most 2^128, so
// 2^63 additions still fit, and integer addition is exact and associative. value() rounds the
// exact sum once, to the nearest double (ties to even).
//
// Infinities and NaN are summed apart as a double (they poison the value as a double sum
// would). A plain value; not thread-safe to fill from two threads.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace attnscope::analysis {

class ExactSum {
public:
    void add(float value);
    void add(const ExactSum& other);

    // The sum rounded once to the nearest double.
    double value() const;

    // Lowercase hexadecimal of the 384-bit two's-complement fixed-point value without leading
    // zeros ("0" for zero), or "inf", "-inf", "nan" when a non-finite value was added.
    std::string toText() const;
    // The reverse; false (and `out` untouched) for anything toText cannot write.
    static bool fromText(std::string_view text, ExactSum& out);

    bool operator==(const ExactSum&) const = default;

private:
    static constexpr int kLimbs = 6;
    std::array<std::uint64_t, kLimbs> m_limbs{};  // little-endian limbs, units of 2^-149
    double m_nonFinite = 0;                       // sum of the infinities and NaNs added
};

}  // namespace attnscope::analysis
