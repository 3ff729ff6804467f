// Rollout and flow, rules A6–A8 of tests/reference/attribution_reference.py (attention_flow.h).
#include "attnscope/analysis/attention_flow.h"

#include <algorithm>
#include <limits>
#include <string>

#include <Eigen/Core>

#include "attnscope/base/error.h"
#include "attnscope/forward/head_record.h"

namespace attnscope::analysis {

namespace {

using RowMajorD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

std::size_t cells(int n) {
    return static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
}

LayerMaps sized(int layers, int n) {
    LayerMaps out;
    out.nLayers = layers;
    out.nTokens = n;
    out.values.assign(static_cast<std::size_t>(layers) * cells(n), 0.0);
    return out;
}

// Dinic's algorithm on adjacency lists; `restore` puts back the capacities keepCapacities
// recorded, since a solved problem leaves residual capacities behind. Written here because no
// Debian C++ library offers a small max-flow (Boost.Graph's needs its graph types and would be
// the project's only Boost dependency).
class Dinic {
public:
    explicit Dinic(int nodes) : m_adjacency(static_cast<std::size_t>(nodes)) {}

    void addEdge(int from, int to, double capacity) {
        auto& out = m_adjacency[static_cast<std::size_t>(from)];
        auto& in = m_adjacency[static_cast<std::size_t>(to)];
        out.push_back({to, capacity, in.size()});
        in.push_back({from, 0.0, out.size() - 1});
    }

    // Records the capacities every edge has now, for restore; call once the graph is built.
    void keepCapacities() {
        m_added.clear();
        for (const auto& edges : m_adjacency) {
            for (const Edge& e : edges) {
                m_added.push_back(e.capacity);
            }
        }
    }

    void restore() {
        std::size_t k = 0;
        for (auto& edges : m_adjacency) {
            for (Edge& e : edges) {
                e.capacity = m_added[k++];
            }
        }
    }

    double run(int source, int sink) {
        double total = 0;
        while (levels(source, sink)) {
            m_next.assign(m_adjacency.size(), 0);
            for (double pushed = push(source, sink, kInf); pushed > 0;
                 pushed = push(source, sink, kInf)) {
                total += pushed;
            }
        }
        return total;
    }

private:
    struct Edge {
        int to;
        double capacity;
        std::size_t reverse;
    };

    static constexpr double kInf = std::numeric_limits<double>::infinity();

    bool levels(int source, int sink) {
        m_level.assign(m_adjacency.size(), -1);
        std::vector<int> queue = {source};
        m_level[static_cast<std::size_t>(source)] = 0;
        for (std::size_t head = 0; head < queue.size(); ++head) {
            const int u = queue[head];
            for (const Edge& e : m_adjacency[static_cast<std::size_t>(u)]) {
                if (e.capacity > 0 && m_level[static_cast<std::size_t>(e.to)] < 0) {
                    m_level[static_cast<std::size_t>(e.to)] =
                        m_level[static_cast<std::size_t>(u)] + 1;
                    queue.push_back(e.to);
                }
            }
        }
        return m_level[static_cast<std::size_t>(sink)] >= 0;
    }

    // One augmenting path along increasing levels (the graph is a few layers deep, so the
    // recursion is as deep as the model has layers).
    double push(int u, int sink, double limit) {
        if (u == sink) {
            return limit;
        }
        auto& edges = m_adjacency[static_cast<std::size_t>(u)];
        for (std::size_t& i = m_next[static_cast<std::size_t>(u)]; i < edges.size(); ++i) {
            Edge& e = edges[i];
            if (e.capacity <= 0 || m_level[static_cast<std::size_t>(e.to)] !=
                                       m_level[static_cast<std::size_t>(u)] + 1) {
                continue;
            }
            const double pushed = push(e.to, sink, std::min(limit, e.capacity));
            if (pushed > 0) {
                e.capacity -= pushed;
                m_adjacency[static_cast<std::size_t>(e.to)][e.reverse].capacity += pushed;
                return pushed;
            }
        }
        return 0;
    }

    std::vector<std::vector<Edge>> m_adjacency;
    std::vector<double> m_added;  // keepCapacities: every edge's capacity, in adjacency order
    std::vector<int> m_level;
    std::vector<std::size_t> m_next;
};

void checkShape(int layers, int n, const char* what) {
    if (layers < 1 || n < 1) {
        throw InvalidArgument(std::string(what) + ": needs at least one layer and one token (got " +
                              std::to_string(layers) + " layers, " + std::to_string(n) +
                              " tokens)");
    }
}

}  // namespace

LayerMaps residualAttention(const std::vector<const float*>& heads, int nLayers, int nHeads,
                            int n) {
    checkShape(nLayers, n, "attention rollout");
    if (nHeads < 1 ||
        heads.size() != static_cast<std::size_t>(nLayers) * static_cast<std::size_t>(nHeads)) {
        throw InvalidArgument("attention rollout: " + std::to_string(heads.size()) +
                              " head maps for " + std::to_string(nLayers) + " layers of " +
                              std::to_string(nHeads) + " heads");
    }
    LayerMaps out = sized(nLayers, n);
    for (int l = 0; l < nLayers; ++l) {
        double* a = out.values.data() + static_cast<std::size_t>(l) * cells(n);
        for (int h = 0; h < nHeads; ++h) {  // head order, as the reference's mean
            const float* map = heads[static_cast<std::size_t>(l * nHeads + h)];
            for (std::size_t c = 0; c < cells(n); ++c) {
                a[c] += static_cast<double>(map[c]);
            }
        }
        for (int i = 0; i < n; ++i) {
            double* row = a + static_cast<std::size_t>(i) * static_cast<std::size_t>(n);
            double sum = 0;
            for (int j = 0; j < n; ++j) {
                row[j] /= nHeads;
                row[j] += i == j ? 1.0 : 0.0;
                sum += row[j];
            }
            for (int j = 0; j < n; ++j) {
                row[j] /= sum;  // >= 1: the identity's 1 is always there
            }
        }
    }
    return out;
}

LayerMaps rollout(const LayerMaps& residual) {
    checkShape(residual.nLayers, residual.nTokens, "attention rollout");
    const int n = residual.nTokens;
    LayerMaps out = sized(residual.nLayers, n);
    using Map = Eigen::Map<const RowMajorD>;
    Eigen::Map<RowMajorD>(out.values.data(), n, n) = Map(residual.layer(0), n, n);
    for (int l = 1; l < residual.nLayers; ++l) {
        Eigen::Map<RowMajorD>(out.values.data() + static_cast<std::size_t>(l) * cells(n), n, n) =
            Map(residual.layer(l), n, n) * Map(out.layer(l - 1), n, n);
    }
    return out;
}

LayerMaps attentionFlow(const LayerMaps& residual, const CancelToken& cancel,
                        const ProgressFn& progress) {
    // Each row's sum is > 0: the residual path i -> ... -> i always has capacity.
    return rowNormalized(attentionFlowRaw(residual, cancel, progress));
}

LayerMaps rowNormalized(LayerMaps maps) {
    const int n = maps.nTokens;
    for (int l = 0; l < maps.nLayers; ++l) {
        for (int i = 0; i < n; ++i) {
            double* row = maps.values.data() + static_cast<std::size_t>(l) * cells(n) +
                          static_cast<std::size_t>(i) * static_cast<std::size_t>(n);
            double sum = 0;
            for (int j = 0; j < n; ++j) {
                sum += row[j];
            }
            if (sum == 0) {
                continue;
            }
            for (int j = 0; j < n; ++j) {
                row[j] /= sum;
            }
        }
    }
    return maps;
}

LayerMaps attentionFlowRaw(const LayerMaps& residual, const CancelToken& cancel,
                           const ProgressFn& progress) {
    checkShape(residual.nLayers, residual.nTokens, "attention flow");
    const int n = residual.nTokens;
    const int layers = residual.nLayers;
    if (n > kFlowMaxTokens) {
        throw InvalidArgument("attention flow: " + std::to_string(n) + " tokens; flow solves " +
                              "layers x n^2 max-flow problems and is limited to " +
                              std::to_string(kFlowMaxTokens) + " tokens");
    }
    LayerMaps out = sized(layers, n);
    // Layer l's problems run on a graph of l + 2 token layers: progress weighs them so.
    const double work = 0.5 * layers * (layers + 3);
    double done = 0;
    for (int l = 0; l < layers; ++l) {
        // Graph layers 0..l+1 are all a source at l+1 reaches; built once, restored per problem.
        Dinic graph((l + 2) * n);
        for (int k = 1; k <= l + 1; ++k) {
            const double* a = residual.layer(k - 1);
            for (int p = 0; p < n; ++p) {
                for (int q = 0; q < n; ++q) {
                    const double c = a[static_cast<std::size_t>(p * n + q)];
                    if (c > 0) {
                        graph.addEdge(k * n + p, (k - 1) * n + q, c);
                    }
                }
            }
        }
        graph.keepCapacities();
        for (int i = 0; i < n; ++i) {
            double* row = out.values.data() + static_cast<std::size_t>(l) * cells(n) +
                          static_cast<std::size_t>(i) * static_cast<std::size_t>(n);
            for (int j = 0; j < n; ++j) {
                cancel.throwIfCancelled();
                row[j] = graph.run((l + 1) * n + i, j);
                graph.restore();
            }
        }
        done += l + 2;
        if (progress) {
            progress(done / work);
        }
    }
    return out;
}

LayerMaps residualAttention(const model::Model& model, const forward::ForwardResult& result,
                            const CancelToken& cancel) {
    std::vector<const float*> heads;
    std::vector<forward::HeadRecord> records;  // recomputed maps, when the budget dropped them
    if (!result.mapsRecorded) {
        records.reserve(static_cast<std::size_t>(result.nLayers * result.nHeads));
    }
    for (int l = 0; l < result.nLayers; ++l) {
        for (int h = 0; h < result.nHeads; ++h) {
            if (result.mapsRecorded) {
                heads.push_back(result.attention({l, h}).data());
            } else {
                records.push_back(forward::headRecord(model, result, {l, h}, cancel));
                heads.push_back(records.back().probs.data());
            }
        }
    }
    return residualAttention(heads, result.nLayers, result.nHeads, result.nTokens);
}

double maxFlow(const std::vector<double>& capacity, int nodes, int source, int sink) {
    if (nodes < 1 || capacity.size() != cells(nodes) || source < 0 || source >= nodes || sink < 0 ||
        sink >= nodes) {
        throw InvalidArgument("max-flow: a graph of " + std::to_string(nodes) + " nodes needs " +
                              std::to_string(cells(std::max(nodes, 0))) +
                              " capacities and a source and sink among its nodes");
    }
    Dinic graph(nodes);
    for (int u = 0; u < nodes; ++u) {
        for (int v = 0; v < nodes; ++v) {
            const double c = capacity[static_cast<std::size_t>(u * nodes + v)];
            if (c > 0) {
                graph.addEdge(u, v, c);
            }
        }
    }
    return source == sink ? std::numeric_limits<double>::infinity() : graph.run(source, sink);
}

}  // namespace attnscope::analysis
