#include "attnscope/forward/forward_result.h"

#include <algorithm>

namespace attnscope::forward {

float ForwardResult::meanEntropy(HeadId h) const {
    const auto e = entropyOf(h);
    double sum = 0.0;
    int count = 0;
    for (int q = 0; q < nTokens; ++q) {
        if (std::find(fullyMaskedRows.begin(), fullyMaskedRows.end(), q) == fullyMaskedRows.end()) {
            sum += e[q];
            ++count;
        }
    }
    return count > 0 ? static_cast<float>(sum / count) : 0.0f;
}

}  // namespace attnscope::forward
