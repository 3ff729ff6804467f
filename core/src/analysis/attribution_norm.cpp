// Norm-based attribution, rule A5 of tests/reference/attribution_reference.py (Kobayashi et al.
// 2020): ‖A f‖ per head, and per layer the norm of the heads' summed vectors.
#include <cmath>

#include "attnscope/base/eigen_core.h"
#include "attnscope/base/threads.h"
#include "attribution_layers.h"

namespace attnscope::analysis::detail {

namespace {

using MatrixD = Eigen::MatrixXd;

// norm_layer[i, j] = ‖Σ_h A[h,i,j] f^h(x_j)‖ = sqrt(aᵀ G_j a) with G_j the Gram matrix of the
// heads' f^h(x_j): H² work per cell instead of H·D, so the per-layer map costs a few percent of
// the layer's forward pass (issue 19's budget is 20 %). In double, so the quadratic form loses
// nothing to cancellation between heads.
void layerNorms(const LayerTerms& t, double* out) {
    const auto heads = static_cast<Eigen::Index>(t.f.size());
    const Eigen::Index n = t.x.rows();
#pragma omp parallel for schedule(static)
    for (Eigen::Index j = 0; j < n; ++j) {
        MatrixD f(heads, t.x.cols());
        for (Eigen::Index h = 0; h < heads; ++h) {
            f.row(h) = t.f[static_cast<std::size_t>(h)].row(j).cast<double>();
        }
        const MatrixD gram = f * f.transpose();
        Eigen::VectorXd a(heads);
        for (Eigen::Index i = 0; i < n; ++i) {
            for (Eigen::Index h = 0; h < heads; ++h) {
                a(h) = t.probs[static_cast<std::size_t>(h)](i, j);
            }
            out[i * n + j] = std::sqrt(std::max(0.0, a.dot(gram * a)));
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
        const LayerTerms t = layerTerms(model, pass, l, options.cancel);
        for (std::size_t h = 0; h < heads; ++h) {
            const std::size_t head = static_cast<std::size_t>(l) * heads + h;
            double* norms = a.transformedNorm.data() + head * n;
            float* map = a.heads.data() + head * n * n;
            for (std::size_t j = 0; j < n; ++j) {
                norms[j] = t.f[h].row(static_cast<Eigen::Index>(j)).cast<double>().norm();
            }
            for (std::size_t i = 0; i < n; ++i) {
                for (std::size_t j = 0; j < n; ++j) {
                    // ‖A f‖ = A ‖f‖ since A >= 0 (A5).
                    map[i * n + j] = static_cast<float>(
                        static_cast<double>(t.probs[h](static_cast<Eigen::Index>(i),
                                                       static_cast<Eigen::Index>(j))) *
                        norms[j]);
                }
            }
        }
        layerNorms(t, a.layers.values.data() + static_cast<std::size_t>(l) * n * n);
        if (options.progress) {
            options.progress(static_cast<double>(l + 1) / pass.nLayers);
        }
    }
    return a;
}

}  // namespace attnscope::analysis::detail
