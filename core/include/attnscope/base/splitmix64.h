// SplitMix64 (Steele, Lea, Flood 2014), as java.util.SplittableRandom and NumPy's seeding use
// it: a tiny generator every language can reproduce with 64-bit unsigned arithmetic, so the
// Python references (importance_reference.SplitMix64) draw the same numbers. Shared by head
// importance's masking and the survey's repeated-token probe.
#pragma once

#include <cstdint>

namespace attnscope {

class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t state) : m_state(state) {}

    std::uint64_t next() {
        m_state += 0x9E3779B97F4A7C15ULL;
        std::uint64_t z = m_state;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }

private:
    std::uint64_t m_state;
};

}  // namespace attnscope
