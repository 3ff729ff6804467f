#include "attnscope/analysis/model_compare.h"

#include <algorithm>
#include <string>

#include "attnscope/analysis/head_compare.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/head_record.h"

namespace attnscope::analysis {

namespace {

std::string shapeOf(const forward::ForwardResult& r) {
    return std::to_string(r.nLayers) + " layers × " + std::to_string(r.nHeads) + " heads, " +
           std::to_string(r.nTokens) + " tokens";
}

// The head's map from the pass, or recomputed when the pass kept none.
Matrix mapOf(const model::Model& model, const forward::ForwardResult& r, HeadId head,
             const CancelToken& cancel) {
    if (r.mapsRecorded) {
        return r.attention(head);
    }
    return forward::recomputeHead(model, r, head, cancel).probs;
}

}  // namespace

std::vector<HeadDivergence> ModelComparison::ranked() const {
    std::vector<HeadDivergence> out = heads;
    std::stable_sort(out.begin(), out.end(), [](const HeadDivergence& x, const HeadDivergence& y) {
        return x.total > y.total;
    });
    return out;
}

ModelComparison compareModels(const model::Model& modelA, const forward::ForwardResult& a,
                              const model::Model& modelB, const forward::ForwardResult& b,
                              const CancelToken& cancel) {
    if (a.nLayers != b.nLayers || a.nHeads != b.nHeads || a.nTokens != b.nTokens ||
        a.keyCount() != b.keyCount() || a.tokenIds != b.tokenIds) {
        throw InvalidArgument("compare models: the passes differ (" + shapeOf(a) + " against " +
                              shapeOf(b) +
                              "): compare models with the same layers and heads on the same "
                              "token ids");
    }
    ModelComparison c{a.nLayers, a.nHeads, a.nTokens, {}};
    c.heads.reserve(static_cast<std::size_t>(a.nLayers) * static_cast<std::size_t>(a.nHeads));
    for (int layer = 0; layer < a.nLayers; ++layer) {
        for (int h = 0; h < a.nHeads; ++h) {
            cancel.throwIfCancelled();
            const HeadId id{layer, h};
            const HeadComparison hc =
                compareHeads(mapOf(modelA, a, id, cancel), mapOf(modelB, b, id, cancel));
            HeadDivergence d{id, hc.totalDivergence, 0.0f, 0.0f, 0};
            d.mean = a.nTokens > 0 ? hc.totalDivergence / static_cast<float>(a.nTokens) : 0.0f;
            const auto top = std::max_element(hc.rowDivergence.begin(), hc.rowDivergence.end());
            if (top != hc.rowDivergence.end()) {
                d.maxRow = *top;
                d.maxRowIndex = static_cast<int>(top - hc.rowDivergence.begin());
            }
            c.heads.push_back(d);
        }
    }
    return c;
}

}  // namespace attnscope::analysis
