#include "attnscope/forward/forward_result.h"

#include <algorithm>
#include <stdexcept>

namespace attnscope::forward {

void ForwardResult::requireMaps() const {
    if (!mapsRecorded) {
        // A programming error, not a data error: callers check mapsRecorded first.
        throw std::logic_error(
            "forward result: attention maps were not recorded (over the memory budget); use "
            "recomputeHead");
    }
}

void ForwardResult::summarizeFromMaps() {
    requireMaps();
    const auto heads = static_cast<std::size_t>(nLayers) * static_cast<std::size_t>(nHeads);
    rowMax.assign(heads * static_cast<std::size_t>(nTokens), 0.0f);
    rowMaxAbsLogit.assign(heads * static_cast<std::size_t>(nTokens), 0.0f);
    maxAbsLogit.assign(heads, 0.0f);
    for (int layer = 0; layer < nLayers; ++layer) {
        for (int head = 0; head < nHeads; ++head) {
            summarizeHead({layer, head}, attention({layer, head}), logitsOf({layer, head}));
        }
    }
}

void ForwardResult::summarizeHead(HeadId h, const Eigen::Ref<const Matrix>& headProbs,
                                  const Eigen::Ref<const Matrix>& headLogits) {
    const std::ptrdiff_t index = headIndex(h, nHeads);
    Eigen::Map<Vector>(rowMax.data() + index * nTokens, nTokens) = headProbs.rowwise().maxCoeff();
    Eigen::Map<Vector> rows(rowMaxAbsLogit.data() + index * nTokens, nTokens);
    rows = (allowedFor(h.layer).array() != 0)
               .select(headLogits.array().abs(), 0.0f)
               .rowwise()
               .maxCoeff();
    maxAbsLogit[static_cast<std::size_t>(index)] = nTokens > 0 ? rows.maxCoeff() : 0.0f;
}

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
