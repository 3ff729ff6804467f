// ALTI, rules A9–A11 of tests/reference/attribution_reference.py (Ferrando et al. 2022, the
// authors' contributions.py): each layer's attention sub-block output decomposed into one term
// per key, contributions from L1 distances, aggregated by rollout.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "attnscope/base/eigen_core.h"
#include "attnscope/base/error.h"
#include "attribution_layers.h"

namespace attnscope::analysis::detail {

namespace {

using RowMajorD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowD = Eigen::Matrix<double, 1, Eigen::Dynamic>;

// How a post-LN layer's LN1 acts on one token's terms (A9): y_i = γ (z_i − mean z_i) / s_i + β
// is linear in z_i once s_i is fixed, so each term T = γ (M − mean M) / s_i. Pre-LN layers
// leave the terms as they are (scale 0 marks that).
struct Linearized {
    bool post = false;
    bool centre = true;            // LayerNorm centres; RMSNorm does not
    RowD gamma;                    // [D]
    Eigen::VectorXd inverseScale;  // [n] 1 / s_i
    RowD bias;        // b_i without the 1/s_i part: β, and b_O's term is added per row
    RowD outputBias;  // b_O, 0 without one
};

Linearized linearize(const model::Model& model, int layer, const LayerTerms& t) {
    const model::ModelSpec& spec = model.spec;
    const model::LayerWeights& w = model.weights.layers[static_cast<std::size_t>(layer)];
    const Eigen::Index d = t.x.cols();
    Linearized lin;
    lin.post = spec.normPlacement == model::NormPlacement::Post;
    lin.centre = spec.normKind == ops::NormKind::LayerNorm;
    lin.outputBias =
        w.output.bias.size() == d ? RowD(w.output.bias.cast<double>().transpose()) : RowD::Zero(d);
    lin.bias = RowD::Zero(d);
    if (!lin.post) {
        return lin;
    }
    lin.gamma = w.attnNorm.weight.cast<double>().transpose();
    if (w.attnNorm.bias.size() == d) {
        lin.bias = w.attnNorm.bias.cast<double>().transpose();
    }
    const RowMajorD z = (t.x + t.attention).cast<double>();
    lin.inverseScale.resize(z.rows());
    for (Eigen::Index i = 0; i < z.rows(); ++i) {
        const RowD centred = lin.centre ? RowD(z.row(i).array() - z.row(i).mean()) : RowD(z.row(i));
        lin.inverseScale(i) = 1.0 / std::sqrt(centred.squaredNorm() / static_cast<double>(d) +
                                              static_cast<double>(spec.normEps));
    }
    return lin;
}

// T for token i from its M (A9).
RowD term(const Linearized& lin, Eigen::Index i, const RowD& m) {
    if (!lin.post) {
        return m;
    }
    const RowD centred = lin.centre ? RowD(m.array() - m.mean()) : m;
    return lin.gamma.cwiseProduct(centred) * lin.inverseScale(i);
}

// b_i (A9).
RowD constant(const Linearized& lin, Eigen::Index i) {
    return term(lin, i, lin.outputBias) + lin.bias;
}

// A10: the terms and b must give back the pass's y, every token and feature.
void checkReconstruction(const RowMajorD& sum, const Matrix& y, int layer, double& error) {
    const double scale = std::max(1.0, static_cast<double>(y.cwiseAbs().maxCoeff()));
    Eigen::Index worstI = 0;
    Eigen::Index worstD = 0;
    error = (sum - y.cast<double>()).cwiseAbs().maxCoeff(&worstI, &worstD);
    constexpr double kTolerance = 1e-5;  // A10's float32 tolerance, relative to max(1, max |y|)
    if (!(error <= kTolerance * scale)) {
        throw Error("ALTI: layer " + std::to_string(layer) + ", token " + std::to_string(worstI) +
                    ", feature " + std::to_string(worstD) + ": the decomposition gives back " +
                    "the layer's output only to " + std::to_string(error) + " (allowed " +
                    std::to_string(kTolerance * scale) + ")");
    }
}

// Query i's term T[i, j] (A9) in place of its M[i, j], in float: centring and scaling are
// elementwise, so float loses nothing the sums (in double) keep.
void toTerm(const Linearized& lin, const Eigen::RowVectorXf& gamma, float inverseScale,
            Eigen::Ref<Eigen::RowVectorXf> m) {
    if (!lin.post) {
        return;
    }
    const float mean = lin.centre ? m.mean() : 0.0f;
    m = ((m.array() - mean) * gamma.array() * inverseScale).matrix();
}

// One layer's contributions C_l (A11) into `out`, [n, n]; returns the reconstruction error.
double layerContributions(const model::Model& model, int layer, const LayerTerms& t, double* out) {
    const Eigen::Index n = t.x.rows();
    const Eigen::Index d = t.x.cols();
    const Linearized lin = linearize(model, layer, t);
    // ŷ_i = Σ_j T[i, j] + b_i without summing the terms: A9's M summed over j is
    // x_i + Σ_h A_h f^h = x_i + (attention output − b_O), and T is linear in M. (The sum over
    // the keys themselves is A10's check below.)
    RowMajorD yhat = (t.x + t.attention).cast<double>();
    yhat.rowwise() -= lin.outputBias;
    for (Eigen::Index i = 0; i < n; ++i) {
        yhat.row(i) = term(lin, i, yhat.row(i)) + constant(lin, i);
    }
    RowMajorD sum = RowMajorD::Zero(n, d);  // Σ_j T[i, j] + b_i, key by key, for A10
    for (Eigen::Index i = 0; i < n; ++i) {
        sum.row(i) = constant(lin, i);
    }
    // ‖ŷ_i‖₁ summed exactly as ‖ŷ_i − T[i, j]‖₁ is below, so a masked key (T = 0) gives c = 0
    // to the bit (A11).
    const Matrix yhatF = yhat.cast<float>();
    Eigen::VectorXd yhatL1(n);
    {
        RowD distance(d);  // |ŷ − T| widened: Eigen vectorises the cast and the sum
        for (Eigen::Index i = 0; i < n; ++i) {
            distance = yhatF.row(i).cwiseAbs().cast<double>();
            yhatL1(i) = distance.sum();
        }
    }
    const Eigen::RowVectorXf gamma =
        lin.post ? Eigen::RowVectorXf(lin.gamma.cast<float>()) : Eigen::RowVectorXf();
    const Eigen::VectorXf inverseScale =
        lin.post ? Eigen::VectorXf(lin.inverseScale.cast<float>()) : Eigen::VectorXf();
#pragma omp parallel
    {
        RowMajorD local = RowMajorD::Zero(n, d);
        KeyTermsBuffers buffers;
        Matrix m;
        Eigen::RowVectorXf row(d);
        RowD gap(d);
#pragma omp for schedule(static)
        for (Eigen::Index j = 0; j < n; ++j) {
            keyTermsInto(t, static_cast<int>(j), buffers, m);
            m.row(j) += t.x.row(j);  // δ_ij x_i
            // Row by row, so each row stays in L1 through its four steps.
            for (Eigen::Index i = 0; i < n; ++i) {
                row = m.row(i);
                toTerm(lin, gamma, lin.post ? inverseScale(i) : 1.0f, row);
                local.row(i) += row.cast<double>();
                gap = (yhatF.row(i) - row).cwiseAbs().cast<double>();
                out[i * n + j] = std::max(0.0, yhatL1(i) - gap.sum());
            }
        }
#pragma omp critical(attnscope_alti_sum)
        sum += local;
    }
    double error = 0;
    checkReconstruction(sum, t.y, layer, error);
    for (Eigen::Index i = 0; i < n; ++i) {
        double* row = out + i * n;
        const double total = std::accumulate(row, row + n, 0.0);
        if (total > 0) {
            std::transform(row, row + n, row, [total](double c) { return c / total; });
        } else {
            row[i] = 1.0;  // A11: no contribution at all keeps the token itself
        }
    }
    return error;
}

}  // namespace

Attribution alti(const model::Model& model, const forward::ForwardResult& pass,
                 const AttributionOptions& options) {
    Attribution a =
        perLayerAttribution(AttributionMethod::Alti, model, pass, options.cancel,
                            [&](int l, const LayerTerms& t, Attribution& out, std::size_t at) {
                                out.reconstructionError.push_back(layerContributions(
                                    model, l, t, out.perLayer.values.data() + at));
                                if (options.progress) {
                                    options.progress(static_cast<double>(l + 1) / pass.nLayers);
                                }
                            });
    a.layers = rollout(a.perLayer);  // A11: the residual is inside C, so no identity is added
    return a;
}

}  // namespace attnscope::analysis::detail
