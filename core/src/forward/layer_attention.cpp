#include "layer_attention.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

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

void setWhatIf(const model::ModelSpec& spec, const AttentionWhatIf& whatIf, AttentionContext& ctx) {
    checkWhatIf(whatIf);
    ctx.whatIf = whatIf;
    if (whatIf.qkNorm == QkNormChoice::Unit) {
        ctx.unitNorm.weight = Vector::Ones(spec.headDimK);
    }
}

bool capsLogits(const model::ModelSpec& spec, const AttentionContext& ctx) {
    return effectiveSoftcap(spec, ctx.whatIf) > 0.0f;
}

namespace {

// The query (or key) projection of heads [first, first + count), each `dk` wide, with the
// QK-norm the what-if leaves (methods.md §13): an RMSNorm of each head's features (Qwen3,
// Gemma 3, the unit what-if), or of the whole projection (OLMo-2), which needs every head's,
// computed and then cut. `unnormed`, when given, receives the projection before the norm (left
// empty on a layer without one).
Matrix projectNormed(const model::ModelSpec& spec, const AttentionContext& ctx, const Matrix& h,
                     const model::Linear& weight, const model::Norm& modelNorm, int first,
                     int count, Matrix* unnormed) {
    const Eigen::Index dk = spec.headDimK;
    const model::QkNorm kind = effectiveQkNorm(spec, ctx.whatIf);
    const model::Norm& norm = ctx.whatIf.qkNorm == QkNormChoice::Unit ? ctx.unitNorm : modelNorm;
    if (kind == model::QkNorm::Whole) {
        const Matrix raw = ops::linear(h, weight);
        if (unnormed != nullptr) {
            *unnormed = raw.middleCols(first * dk, count * dk);
        }
        const Matrix all = ops::rmsNorm(raw, norm, spec.normEps);
        return all.middleCols(first * dk, count * dk);
    }
    Matrix x = ops::linearRows(h, weight, first * dk, count * dk);
    if (kind == model::QkNorm::PerHead) {
        if (unnormed != nullptr) {
            *unnormed = x;
        }
        // Row-major [n, count * dk] read as [n * count, dk]: one row a token's head.
        const Matrix byHead = MatrixMap(x.data(), x.rows() * count, dk);
        const Matrix normed = ops::rmsNorm(byHead, norm, spec.normEps);
        x = ConstMatrixMap(normed.data(), x.rows(), count * dk);
    }
    return x;
}

// Query heads [first, first + count) and the key/value heads they read.
Projections projectHeads(const model::Model& m, int layer, const Matrix& h,
                         const AttentionContext& ctx, int first, int count) {
    const model::ModelSpec& spec = m.spec;
    const model::LayerWeights& w = m.weights.layers[static_cast<std::size_t>(layer)];
    const int kvFirst = spec.kvHeadOf(first);
    const int kvCount = spec.kvHeadOf(first + count - 1) - kvFirst + 1;
    const Eigen::Index dv = spec.headDimV;
    Projections p;
    p.firstHead = first;
    p.firstKvHead = kvFirst;
    p.q = projectNormed(spec, ctx, h, w.query, w.queryNorm, first, count,
                        ctx.keepUnnormed ? &p.qUnnormed : nullptr);
    p.k = projectNormed(spec, ctx, h, w.key, w.keyNorm, kvFirst, kvCount,
                        ctx.keepUnnormed ? &p.kUnnormed : nullptr);
    p.v = ops::linearRows(h, w.value, kvFirst * dv, kvCount * dv);
    const ops::RopeSpec& rope = spec.ropeOf(layer);
    if (rope.dims > 0) {
        ops::applyRope(p.q, count, spec.headDimK, rope, ctx.rope);
        ops::applyRope(p.k, kvCount, spec.headDimK, rope, ctx.rope);
        if (p.qUnnormed.size() > 0) {
            ops::applyRope(p.qUnnormed, count, spec.headDimK, rope, ctx.rope);
            ops::applyRope(p.kUnnormed, kvCount, spec.headDimK, rope, ctx.rope);
        }
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
                            float scale, const AttentionContext& ctx, ops::AttentionOutputs out,
                            float* scaledRowMaxAbs) {
    const SerialProducts serial;
    const int dk = spec.headDimK;
    const int dv = spec.headDimV;
    const int q = head - p.firstHead;
    const int kv = spec.kvHeadOf(head) - p.firstKvHead;
    std::vector<int> masked = ops::attentionInto(
        p.q.middleCols(q * dk, dk), p.k.middleCols(kv * dk, dk), p.v.middleCols(kv * dv, dv), scale,
        ctx.biasFor(head), out, effectiveSoftcap(spec, ctx.whatIf), scaledRowMaxAbs);
    if (!ctx.relative.empty()) {
        out.logits += ctx.relative[static_cast<std::size_t>(head)];
    }
    return masked;
}

void recordUnnormed(const model::ModelSpec& spec, int layer, const Projections& p,
                    const AttentionContext& ctx, float scale, ForwardResult& r) {
    const auto rows = [&](std::vector<float>& v, int head) {
        return v.data() + headIndex({layer, head}, spec.nHeads) * r.nTokens;
    };
    if (p.qUnnormed.size() == 0) {  // no QK-norm: nothing between the two stages
        for (int head = 0; head < spec.nHeads; ++head) {
            std::copy_n(rows(r.rowMaxAbsScaled, head), r.nTokens, rows(r.rowMaxAbsUnnormed, head));
        }
        return;
    }
    const Eigen::Index dk = spec.headDimK;
    for (int head = 0; head < spec.nHeads; ++head) {
        const Matrix s =
            p.qUnnormed.middleCols((head - p.firstHead) * dk, dk) *
            p.kUnnormed.middleCols((spec.kvHeadOf(head) - p.firstKvHead) * dk, dk).transpose() *
            scale;
        const Matrix& bias = ctx.biasFor(head);
        Eigen::Map<Vector>(rows(r.rowMaxAbsUnnormed, head), r.nTokens) =
            (bias.array() > -std::numeric_limits<float>::infinity())
                .select(s.array().abs(), 0.0f)
                .rowwise()
                .maxCoeff();
    }
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
