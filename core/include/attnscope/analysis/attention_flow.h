// Attention rollout and attention flow (Abnar & Zuidema 2020; issue 19): how much each input
// token reaches each position after every layer, from the recorded attention maps only. The
// rules are A6–A8 of tests/reference/attribution_reference.py, the independent reference this
// code is checked against:
//   A6  Ā_l = mean of layer l's maps over its query heads; Ã_l = (Ā_l + I) / rowsum(Ā_l + I);
//       R_0 = Ã_0, R_l = Ã_l · R_{l−1} (the later layer on the left); rollout[l] = R_l.
//   A7  flow: nodes (k, p), k = 0..L (k = 0: the input tokens); an edge (k, p) → (k−1, q) of
//       capacity Ã_{k−1}[p][q] where that is > 0; flow[l][i][j] = maxflow((l+1, i) → (0, j)),
//       each row then divided by its sum. Max-flow in double (Dinic's algorithm).
//   A8  flow needs n ≤ kFlowMaxTokens (it solves L · n² max-flow problems).
// Rows are query (receiving) positions, columns key (source) positions; every position,
// special tokens included, is a row and a column. No Qt.
#pragma once

#include <cstddef>
#include <vector>

#include "attnscope/base/cancel.h"
#include "attnscope/forward/forward_result.h"
#include "attnscope/model/model.h"

namespace attnscope::analysis {

inline constexpr int kFlowMaxTokens = 64;

// Per-layer [n, n] row-major maps in double, layer l at [l * n * n].
struct LayerMaps {
    int nLayers = 0;
    int nTokens = 0;
    std::vector<double> values;

    const double* layer(int l) const {
        return values.data() + static_cast<std::size_t>(l) * static_cast<std::size_t>(nTokens) *
                                   static_cast<std::size_t>(nTokens);
    }
};

// A6's Ã_l for every layer from the heads' maps: heads[l * nHeads + h] points at head h of layer
// l, an [n, n] row-major float map. InvalidArgument for no layer, no head or n < 1.
LayerMaps residualAttention(const std::vector<const float*>& heads, int nLayers, int nHeads, int n);

// A6 on Ã (residualAttention's result).
LayerMaps rollout(const LayerMaps& residual);

// A7 on Ã; InvalidArgument when n > kFlowMaxTokens (A8), naming n and the cap. Cancelled between
// max-flow problems; progress after each layer, weighted by the size of its graph.
LayerMaps attentionFlow(const LayerMaps& residual, const CancelToken& cancel = {},
                        const ProgressFn& progress = {});

// Every row divided by its sum; a row summing to 0 stays as it is.
LayerMaps rowNormalized(LayerMaps maps);

// A7's flow_raw: the max-flow values before each row is divided by its sum. Same limits.
LayerMaps attentionFlowRaw(const LayerMaps& residual, const CancelToken& cancel = {},
                           const ProgressFn& progress = {});

// The maps of a forward result (recorded, or each head recomputed when the map budget dropped
// them), for the functions above.
LayerMaps residualAttention(const model::Model& model, const forward::ForwardResult& result,
                            const CancelToken& cancel = {});

// The max-flow value from `source` to `sink` of a graph given as capacities [nodes × nodes]
// (capacity[u * nodes + v] of the edge u → v; 0: no edge). Dinic's algorithm; exposed for its
// golden tests.
double maxFlow(const std::vector<double>& capacity, int nodes, int source, int sink);

}  // namespace attnscope::analysis
