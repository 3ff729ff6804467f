#include "layer_attention.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <omp.h>

#include "attnscope/ops/layer_ops.h"

namespace attnscope::forward::detail {

std::vector<int> positionIds(const model::ModelSpec& spec, const std::vector<std::int32_t>& ids) {
    std::vector<int> pos(ids.size());
    int next = spec.positionOffset;
    if (spec.positions == model::PositionScheme::SkipPadTokens) {
        next = spec.padTokenId.value_or(0) + 1;
    }
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const bool isPad = spec.positions == model::PositionScheme::SkipPadTokens &&
                           ids[i] == spec.padTokenId.value_or(-1);
        pos[i] = isPad ? *spec.padTokenId : next++;
    }
    return pos;
}

namespace {

// Query heads [first, first + count) and the key/value heads they read.
Projections projectHeads(const model::Model& m, int layer, const Matrix& h,
                         const AttentionContext& ctx, int first, int count) {
    const model::ModelSpec& spec = m.spec;
    const model::LayerWeights& w = m.weights.layers[static_cast<std::size_t>(layer)];
    const int kvFirst = spec.kvHeadOf(first);
    const int kvCount = spec.kvHeadOf(first + count - 1) - kvFirst + 1;
    const Eigen::Index dk = spec.headDimK;
    const Eigen::Index dv = spec.headDimV;
    Projections p{ops::linearRows(h, w.query, first * dk, count * dk),
                  ops::linearRows(h, w.key, kvFirst * dk, kvCount * dk),
                  ops::linearRows(h, w.value, kvFirst * dv, kvCount * dv), first, kvFirst};
    if (spec.rope.dims > 0) {
        ops::applyRope(p.q, count, spec.headDimK, spec.rope, ctx.rope);
        ops::applyRope(p.k, kvCount, spec.headDimK, spec.rope, ctx.rope);
    }
    return p;
}

}  // namespace

Projections project(const model::Model& m, int layer, const Matrix& h,
                    const AttentionContext& ctx) {
    return projectHeads(m, layer, h, ctx, 0, m.spec.nHeads);
}

Projections projectHead(const model::Model& m, int layer, int head, const Matrix& h,
                        const AttentionContext& ctx) {
    return projectHeads(m, layer, h, ctx, head, 1);
}

namespace {

// Keeps Eigen from splitting this thread's products over an OpenMP team while it lives. A head
// is computed by one thread both in the pass (heads run in parallel) and in recomputeHead
// (alone), so its products see the same kernels and blocking and the bits agree.
class SerialProducts {
public:
    SerialProducts() : m_saved(omp_get_max_threads()) { omp_set_num_threads(1); }

    ~SerialProducts() { omp_set_num_threads(m_saved); }

    SerialProducts(const SerialProducts&) = delete;
    SerialProducts& operator=(const SerialProducts&) = delete;

private:
    int m_saved;
};

}  // namespace

std::vector<int> attendHead(const model::ModelSpec& spec, const Projections& p, int head,
                            float scale, const AttentionContext& ctx, ops::AttentionOutputs out) {
    const SerialProducts serial;
    const int dk = spec.headDimK;
    const int dv = spec.headDimV;
    const int q = head - p.firstHead;
    const int kv = spec.kvHeadOf(head) - p.firstKvHead;
    std::vector<int> masked =
        ops::attentionInto(p.q.middleCols(q * dk, dk), p.k.middleCols(kv * dk, dk),
                           p.v.middleCols(kv * dv, dv), scale, ctx.biasFor(head), out);
    if (!ctx.relative.empty()) {
        out.logits += ctx.relative[static_cast<std::size_t>(head)];
    }
    return masked;
}

int relativeBucket(int relative, bool bidirectional, int buckets, int maxDistance) {
    int bucket = 0;
    int distance = 0;
    if (bidirectional) {
        buckets /= 2;
        bucket += relative > 0 ? buckets : 0;
        distance = std::abs(relative);
    } else {
        distance = -std::min(relative, 0);
    }
    const int maxExact = buckets / 2;
    if (distance < maxExact) {
        return bucket + distance;
    }
    // torch: log(float32 distance / max_exact) / log(max_distance / max_exact) (a Python float,
    // applied in float32) * (buckets - max_exact), truncated toward zero.
    const float logRatio = std::log(static_cast<float>(distance) / static_cast<float>(maxExact));
    const auto range = static_cast<float>(
        std::log(static_cast<double>(maxDistance) / static_cast<double>(maxExact)));
    const float scaled = logRatio / range * static_cast<float>(buckets - maxExact);
    const int large = maxExact + static_cast<int>(scaled);
    return bucket + std::min(large, buckets - 1);
}

void addRelativeBias(const model::Model& m, AttentionContext& ctx) {
    const model::ModelSpec& spec = m.spec;
    if (spec.relativeBuckets <= 0) {
        return;
    }
    const Eigen::Index nq = ctx.bias.rows();
    const Eigen::Index nk = ctx.bias.cols();
    std::vector<int> bucketOf(static_cast<std::size_t>(nq + nk));  // by key - query + nq
    for (Eigen::Index d = -nq; d < nk; ++d) {
        bucketOf[static_cast<std::size_t>(d + nq)] =
            relativeBucket(static_cast<int>(d), spec.relativeBidirectional, spec.relativeBuckets,
                           spec.relativeMaxDistance);
    }
    const Matrix& table = m.weights.relativeBias;  // [buckets, heads]
    for (int head = 0; head < spec.nHeads; ++head) {
        Matrix rel(nq, nk);
        for (Eigen::Index i = 0; i < nq; ++i) {
            for (Eigen::Index j = 0; j < nk; ++j) {
                rel(i, j) = table(bucketOf[static_cast<std::size_t>(j - i + nq)], head);
            }
        }
        ctx.headBias.push_back(ctx.bias + rel);
        ctx.relative.push_back(std::move(rel));
    }
}

}  // namespace attnscope::forward::detail
