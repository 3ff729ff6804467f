// Norm-based attribution, rule A5 of tests/reference/attribution_reference.py (Kobayashi et al.
// 2020): ‖A f‖ per head, and per layer the norm of the heads' summed vectors.
#include <cmath>

#include "attnscope/base/eigen_core.h"
#include "attribution_layers.h"

namespace attnscope::analysis::detail {

namespace {

using MatrixD = Eigen::MatrixXd;
using RowMajorD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// norm_layer[i, j] = ‖Σ_h A[h,i,j] f^h(x_j)‖ = sqrt(aᵀ G_j a) with G_j the Gram matrix of the
// heads' f^h(x_j): H² work per cell instead of H·D, so the per-layer map costs a few percent of
// the layer's forward pass (issue 19's budget is 20 %). In double, so the quadratic form loses
// nothing to cancellation between heads. G is laid out [h, g] x keys so that every step below
// runs along contiguous rows (of A and of G) over all keys at once; G's diagonal gives
// ‖f^h(x_j)‖ into norms[h * n + j].
void layerNorms(const LayerTerms& t, double* out, double* norms) {
    const auto heads = static_cast<Eigen::Index>(t.f.size());
    const Eigen::Index n = t.x.rows();
    RowMajorD gram(heads * heads, n);  // row h * H + g: f^h(x_j) · f^g(x_j) for every key j
#pragma omp parallel
    {
        RowMajorD f(heads, t.x.cols());
#pragma omp for schedule(static)
        for (Eigen::Index j = 0; j < n; ++j) {
            for (Eigen::Index h = 0; h < heads; ++h) {
                f.row(h) = t.f[static_cast<std::size_t>(h)].row(j).cast<double>();
            }
            for (Eigen::Index h = 0; h < heads; ++h) {  // symmetric: one dot product per pair
                for (Eigen::Index g = 0; g <= h; ++g) {
                    gram(h * heads + g, j) = gram(g * heads + h, j) = f.row(h).dot(f.row(g));
                }
            }
        }
#pragma omp for schedule(static)
        for (Eigen::Index h = 0; h < heads; ++h) {
            Eigen::Map<Eigen::RowVectorXd>(norms + h * n, n) =
                gram.row(h * heads + h).array().sqrt().matrix();
        }
        RowMajorD a(heads, n);  // A[h, i, j] of one query i, every key
        Eigen::ArrayXXd sum(1, n);
#pragma omp for schedule(static)
        for (Eigen::Index i = 0; i < n; ++i) {
            for (Eigen::Index h = 0; h < heads; ++h) {
                a.row(h) = t.probs[static_cast<std::size_t>(h)].row(i).cast<double>();
            }
            sum.setZero();
            for (Eigen::Index h = 0; h < heads; ++h) {
                sum += a.row(h).array().square() * gram.row(h * heads + h).array();
                for (Eigen::Index g = 0; g < h; ++g) {
                    sum +=
                        2 * a.row(h).array() * a.row(g).array() * gram.row(h * heads + g).array();
                }
            }
            Eigen::Map<Eigen::RowVectorXd>(out + i * n, n) = sum.max(0.0).sqrt().matrix();
        }
    }
}

// norm_head = A ‖f‖ for every head of the layer into `maps` ([H, n, n]): ‖A f‖ = A ‖f‖ since
// A >= 0 (A5).
void headNorms(const LayerTerms& t, const double* norms, float* maps) {
    const auto heads = t.probs.size();
    const auto n = static_cast<std::size_t>(t.x.rows());
#pragma omp parallel for schedule(static)
    for (std::size_t h = 0; h < heads; ++h) {
        const double* norm = norms + h * n;
        const float* probs = t.probs[h].data();
        float* map = maps + h * n * n;
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = 0; j < n; ++j) {
                map[i * n + j] =
                    static_cast<float>(static_cast<double>(probs[i * n + j]) * norm[j]);
            }
        }
    }
}

}  // namespace

Attribution normBased(const model::Model& model, const forward::ForwardResult& pass,
                      const AttributionOptions& options) {
    Attribution a = emptyAttribution(AttributionMethod::Norm, pass);
    const auto n = static_cast<std::size_t>(pass.nTokens);
    const auto heads = static_cast<std::size_t>(pass.nHeads);
    a.heads.resize(static_cast<std::size_t>(pass.nLayers) * heads * n * n);
    a.transformedNorm.assign(static_cast<std::size_t>(pass.nLayers) * heads * n, 0.0);
    forEachLayerMap(
        model, pass, options.cancel, false, [&](int l, const LayerTerms& t, std::size_t at) {
            double* norms = a.transformedNorm.data() + static_cast<std::size_t>(l) * heads * n;
            layerNorms(t, a.layers.values.data() + at, norms);
            headNorms(t, norms, a.heads.data() + at * heads);  // layer l's [heads, n, n] maps
            if (options.progress) {
                options.progress(static_cast<double>(l + 1) / pass.nLayers);
            }
        });
    return a;
}

}  // namespace attnscope::analysis::detail
