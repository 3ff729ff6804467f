#include "attnscope/analysis/exact_sum.h"

#include <bit>
#include <cmath>
#include <cstddef>
#include <limits>

namespace attnscope::analysis {

namespace {

using Limbs = std::array<std::uint64_t, 6>;

// Adds `value << shift` (value < 2^24, shift <= 253) to the limbs, or subtracts it. Only the two
// limbs the value touches and the carry (borrow) after them are visited: this runs once per
// attention weight.
void addShifted(Limbs& limbs, std::uint64_t value, unsigned shift, bool negative) {
    const std::size_t at = shift / 64;
    const unsigned bit = shift % 64;
    const std::uint64_t lo = value << bit;
    const std::uint64_t hi = bit != 0 ? value >> (64 - bit) : 0;  // < 2^24: hi + 1 cannot wrap
    if (!negative) {
        const std::uint64_t first = limbs[at] + lo;
        std::uint64_t carry = first < lo ? 1 : 0;
        limbs[at] = first;
        for (std::size_t i = at + 1; i < limbs.size(); ++i) {
            const std::uint64_t add = (i == at + 1 ? hi : 0) + carry;
            if (add == 0) {
                break;
            }
            limbs[i] += add;
            carry = limbs[i] < add ? 1 : 0;
        }
        return;
    }
    std::uint64_t borrow = limbs[at] < lo ? 1 : 0;
    limbs[at] -= lo;
    for (std::size_t i = at + 1; i < limbs.size(); ++i) {
        const std::uint64_t sub = (i == at + 1 ? hi : 0) + borrow;
        if (sub == 0) {
            break;
        }
        borrow = limbs[i] < sub ? 1 : 0;
        limbs[i] -= sub;
    }
}

bool isNegative(const Limbs& limbs) {
    return (limbs.back() >> 63) != 0;
}

Limbs negated(Limbs limbs) {
    std::uint64_t carry = 1;
    for (std::uint64_t& l : limbs) {
        l = ~l + carry;
        carry = (carry != 0 && l == 0) ? 1 : 0;
    }
    return limbs;
}

// The highest set bit of a non-negative value, or -1 for zero.
int topBit(const Limbs& limbs) {
    for (int i = static_cast<int>(limbs.size()) - 1; i >= 0; --i) {
        const std::uint64_t l = limbs[static_cast<std::size_t>(i)];
        if (l != 0) {
            return i * 64 + 63 - std::countl_zero(l);
        }
    }
    return -1;
}

// Bits [from, from + 64) of a non-negative value.
std::uint64_t bitsFrom(const Limbs& limbs, int from) {
    const auto at = static_cast<std::size_t>(from / 64);
    const int bit = from % 64;
    std::uint64_t out = limbs[at] >> bit;
    if (bit != 0 && at + 1 < limbs.size()) {
        out |= limbs[at + 1] << (64 - bit);
    }
    return out;
}

bool anyBitBelow(const Limbs& limbs, int end) {
    for (int i = 0; i * 64 < end; ++i) {
        std::uint64_t l = limbs[static_cast<std::size_t>(i)];
        const int keep = end - i * 64;
        if (keep < 64) {
            l &= (std::uint64_t{1} << keep) - 1;
        }
        if (l != 0) {
            return true;
        }
    }
    return false;
}

constexpr int kUnitExponent = -149;  // the fixed point's unit: 2^-149

}  // namespace

void ExactSum::add(float value) {
    const auto bits = std::bit_cast<std::uint32_t>(value);
    const std::uint32_t exponent = (bits >> 23) & 0xFF;
    if (exponent == 0xFF) {
        m_nonFinite += static_cast<double>(value);
        return;
    }
    const std::uint32_t fraction = bits & 0x7FFFFF;
    if (exponent == 0 && fraction == 0) {
        return;
    }
    // Normal: (2^23 + fraction) * 2^(exponent - 150) = that mantissa << (exponent - 1) units.
    // Subnormal: fraction * 2^-149 = fraction units.
    const std::uint64_t mantissa = exponent == 0 ? fraction : (fraction | 0x800000u);
    const unsigned shift = exponent == 0 ? 0 : exponent - 1;
    addShifted(m_limbs, mantissa, shift, (bits >> 31) != 0);
}

void ExactSum::add(const ExactSum& other) {
    std::uint64_t carry = 0;
    for (std::size_t i = 0; i < m_limbs.size(); ++i) {
        const std::uint64_t s = m_limbs[i] + other.m_limbs[i];
        const std::uint64_t c1 = s < m_limbs[i] ? 1 : 0;
        m_limbs[i] = s + carry;
        carry = c1 | (m_limbs[i] < s ? 1 : 0);
    }
    m_nonFinite += other.m_nonFinite;
}

double ExactSum::value() const {
    if (m_nonFinite != 0 || std::isnan(m_nonFinite)) {
        return m_nonFinite;
    }
    const bool negative = isNegative(m_limbs);
    const Limbs magnitude = negative ? negated(m_limbs) : m_limbs;
    const int top = topBit(magnitude);
    if (top < 0) {
        return 0.0;
    }
    double d = 0;
    if (top < 64) {
        d = std::ldexp(static_cast<double>(magnitude[0]), kUnitExponent);  // 64 bits: exact
    } else {
        // The top 64 bits, with every lower bit folded into the lowest as a sticky bit: the
        // conversion to double then rounds as the full value would (53 bits kept, 11 below).
        std::uint64_t head = bitsFrom(magnitude, top - 63);
        if (anyBitBelow(magnitude, top - 63)) {
            head |= 1;
        }
        d = std::ldexp(static_cast<double>(head), top - 63 + kUnitExponent);
    }
    return negative ? -d : d;
}

std::string ExactSum::toText() const {
    if (std::isnan(m_nonFinite)) {
        return "nan";
    }
    if (m_nonFinite != 0) {
        return m_nonFinite > 0 ? "inf" : "-inf";
    }
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    for (int i = kLimbs * 16 - 1; i >= 0; --i) {
        const auto nibble = (m_limbs[static_cast<std::size_t>(i / 16)] >> (4 * (i % 16))) & 0xF;
        if (nibble != 0 || !out.empty()) {
            out.push_back(kDigits[nibble]);
        }
    }
    return out.empty() ? "0" : out;
}

bool ExactSum::fromText(std::string_view text, ExactSum& out) {
    ExactSum sum;
    if (text == "nan" || text == "inf" || text == "-inf") {
        constexpr double kInf = std::numeric_limits<double>::infinity();
        sum.m_nonFinite = text == "nan" ? std::numeric_limits<double>::quiet_NaN()
                                        : (text == "inf" ? kInf : -kInf);
        out = sum;
        return true;
    }
    if (text.empty() || text.size() > kLimbs * 16 || (text.size() > 1 && text[0] == '0')) {
        return false;
    }
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[text.size() - 1 - i];
        std::uint64_t nibble = 0;
        if (c >= '0' && c <= '9') {
            nibble = static_cast<std::uint64_t>(c - '0');
        } else if (c >= 'a' && c <= 'f') {
            nibble = static_cast<std::uint64_t>(c - 'a' + 10);
        } else {
            return false;
        }
        sum.m_limbs[i / 16] |= nibble << (4 * (i % 16));
    }
    out = sum;
    return true;
}

}  // namespace attnscope::analysis
