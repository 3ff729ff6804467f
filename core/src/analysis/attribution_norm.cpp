// Norm-based attribution, rule A5 of tests/reference/attribution_reference.py (Kobayashi et al.
// 2020): ‖A f‖ per head, and per layer the norm of the heads' summed vectors.
#include <cmath>

#include "attnscope/base/eigen_core.h"
#include "attnscope/base/threads.h"
#include "attribution_layers.h"

namespace attnscope::analysis::detail {

namespace {

using MatrixD = Eigen::MatrixXd;
using RowMajorD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// norm_layer[i, j] = ‖Σ_h A[h,i,j] f^h(x_j)‖ = sqrt(aᵀ G_j a) with G_j the Gram matrix of the
// heads' f^h(x_j): H² work per cell instead of H·D, so the per-layer map costs a few percent of
// the layer's forward pass (issue 19's budget is 20 %). In double, so the quadratic form loses
// nothing to cancellation between heads. All queries of key j at once, in buffers made once per
// thread (no allocation per cell); G_j's diagonal gives ‖f^h(x_j)‖ into norms[h * n + j].
void layerNorms(const LayerTerms& t, double* out, double* norms) {
    const auto heads = static_cast<Eigen::Index>(t.f.size());
    const Eigen::Index n = t.x.rows();
#pragma omp parallel
    {
        RowMajorD f(heads, t.x.cols());
        MatrixD gram(heads, heads);
        MatrixD a(n, heads);  // A[h, i, j] for every query i
        MatrixD ag(n, heads);
#pragma omp for schedule(static)
        for (Eigen::Index j = 0; j < n; ++j) {
            for (Eigen::Index h = 0; h < heads; ++h) {
                const auto uh = static_cast<std::size_t>(h);
                f.row(h) = t.f[uh].row(j).cast<double>();
                a.col(h) = t.probs[uh].col(j).cast<double>();
            }
            for (Eigen::Index h = 0; h < heads; ++h) {  // symmetric: one dot product per pair
                for (Eigen::Index g = 0; g <= h; ++g) {
                    gram(h, g) = gram(g, h) = f.row(h).dot(f.row(g));
                }
                norms[h * n + j] = std::sqrt(gram(h, h));
            }
            ag.noalias() = a.lazyProduct(gram);
            for (Eigen::Index i = 0; i < n; ++i) {
                out[i * n + j] = std::sqrt(std::max(0.0, ag.row(i).dot(a.row(i))));
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
    a.heads.assign(static_cast<std::size_t>(pass.nLayers) * heads * n * n, 0.0f);
    a.transformedNorm.assign(static_cast<std::size_t>(pass.nLayers) * heads * n, 0.0);
    applyComputeThreads();
    for (int l = 0; l < pass.nLayers; ++l) {
        options.cancel.throwIfCancelled();
        const LayerTerms t = layerTerms(model, pass, l, options.cancel, false);
        double* norms = a.transformedNorm.data() + static_cast<std::size_t>(l) * heads * n;
        layerNorms(t, a.layers.values.data() + static_cast<std::size_t>(l) * n * n, norms);
        for (std::size_t h = 0; h < heads; ++h) {
            const double* norm = norms + h * n;
            const float* probs = t.probs[h].data();
            float* map = a.heads.data() + (static_cast<std::size_t>(l) * heads + h) * n * n;
            for (std::size_t i = 0; i < n; ++i) {
                for (std::size_t j = 0; j < n; ++j) {
                    // ‖A f‖ = A ‖f‖ since A >= 0 (A5).
                    map[i * n + j] =
                        static_cast<float>(static_cast<double>(probs[i * n + j]) * norm[j]);
                }
            }
        }
        if (options.progress) {
            options.progress(static_cast<double>(l + 1) / pass.nLayers);
        }
    }
    return a;
}

}  // namespace attnscope::analysis::detail
