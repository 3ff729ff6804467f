// The largest absolute values and differences the parity tests compare with their tolerances,
// computed in double so that the comparison adds no rounding of its own.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace attnscope::testing {

// max |a[i] - b[i]| over b's elements (a holds at least as many).
inline double maxAbsDiff(const float* a, const std::vector<float>& b) {
    double worst = 0;
    for (std::size_t i = 0; i < b.size(); ++i) {
        worst = std::max(worst, std::abs(static_cast<double>(a[i]) - b[i]));
    }
    return worst;
}

// max |v[i]|.
inline double maxAbs(const std::vector<float>& v) {
    double worst = 0;
    for (const float x : v) {
        worst = std::max(worst, std::abs(static_cast<double>(x)));
    }
    return worst;
}

}  // namespace attnscope::testing
