// Value zeroing, rules A12–A13 of tests/reference/attribution_reference.py (Mohebbi et al.
// 2023, inseq's value_zeroing.py): for every layer and key j, the layer rerun on its clean input
// with v_j zeroed in every head, and how far each token's output turns (1 − cosine). The last
// layer's outputs are compared after the model's final norm, where it has one (A12).
#include <algorithm>
#include <cmath>

#include "attnscope/base/eigen_core.h"
#include "attnscope/forward/layer_block.h"
#include "attnscope/ops/layer_ops.h"
#include "attribution_layers.h"

namespace attnscope::analysis::detail {

namespace {

using RowD = Eigen::Matrix<double, 1, Eigen::Dynamic>;

// Rows of the stacked variants per block: enough to keep the FFN's products large, small enough
// that the block's FFN activations stay in the tens of megabytes.
constexpr Eigen::Index kRowsPerBlock = 4096;

constexpr double kThreshold = 1e-5;  // A13

// 1 − cos(a, b) in A12's stable form 0.5 ‖a/‖a‖ − b/‖b‖‖², norms clamped at 1e-8; 1 when either
// vector is 0.
double oneMinusCosine(const RowD& a, const RowD& b) {
    const double na = a.norm();
    const double nb = b.norm();
    if (na == 0 || nb == 0) {
        return 1.0;
    }
    return 0.5 * (a / std::max(na, 1e-8) - b / std::max(nb, 1e-8)).squaredNorm();
}

// The state A12 compares: the layer's output, or for the last layer the model's last hidden
// state, which inseq reads from Hugging Face's hidden_states[-1]: after the final norm of pre-LN
// models (GPT-2's ln_f, the Llama family's norm). Post-LN models have none; their last hidden
// state is the last layer's output. The norm acts on each row alone, so stacked variants may
// pass through it together.
Matrix comparedState(const model::Model& model, int layer, Matrix output) {
    const model::ModelSpec& spec = model.spec;
    if (layer != spec.nLayers - 1 || !spec.finalNorm) {
        return output;
    }
    return ops::normalize(output, model.weights.finalNorm, spec.normKind, spec.normEps);
}

// Layer l's raw scores (A12) into `raw`, [n, n].
void layerScores(const model::Model& model, int layer, const LayerTerms& t, double* raw,
                 const AttributionOptions& options, double done, double share) {
    const Eigen::Index n = t.x.rows();
    const Eigen::Index d = t.x.cols();
    const Matrix clean =
        comparedState(model, layer, forward::finishLayer(model, layer, Matrix(t.x), t.y));
    const Eigen::Index keysPerBlock = std::clamp<Eigen::Index>(kRowsPerBlock / n, 1, n);
    // Every variant starts from the same clean input: stacked once, a block's worth.
    const Matrix stacked = t.x.replicate(keysPerBlock, 1);
    KeyTermsBuffers buffers;
    Matrix terms;
    for (Eigen::Index first = 0; first < n; first += keysPerBlock) {
        options.cancel.throwIfCancelled();
        const Eigen::Index keys = std::min(keysPerBlock, n - first);
        Matrix attention(keys * n, d);
        for (Eigen::Index k = 0; k < keys; ++k) {
            // Zeroing v_j (bias included, every key/value head) takes exactly its heads' terms
            // out of the attention output; the probabilities stay as they were (A12).
            keyTermsInto(t, static_cast<int>(first + k), buffers, terms);
            attention.middleRows(k * n, n) = t.attention - terms;
        }
        const Matrix inputs = keys == keysPerBlock ? stacked : Matrix(stacked.topRows(keys * n));
        const Matrix zeroed = comparedState(
            model, layer,
            forward::finishLayer(model, layer, inputs,
                                 forward::attentionResidual(model, layer, inputs, attention)));
        for (Eigen::Index k = 0; k < keys; ++k) {
            const Eigen::Index j = first + k;
            for (Eigen::Index i = 0; i < n; ++i) {
                raw[i * n + j] = oneMinusCosine(clean.row(i).cast<double>(),
                                                zeroed.row(k * n + i).cast<double>());
            }
        }
        if (options.progress) {
            options.progress(done +
                             share * static_cast<double>(first + keys) / static_cast<double>(n));
        }
    }
}

// A13 on one layer: forbidden cells and scores under the threshold to 0, rows normalised.
void postProcess(const BoolMatrix& allowed, const double* raw, double* out, Eigen::Index n) {
    for (Eigen::Index i = 0; i < n; ++i) {
        double sum = 0;
        for (Eigen::Index j = 0; j < n; ++j) {
            const double s = raw[i * n + j];
            out[i * n + j] = allowed(i, j) != 0 && s >= kThreshold ? s : 0.0;
            sum += out[i * n + j];
        }
        if (sum > 0) {  // a row summing to 0 stays all zero
            for (Eigen::Index j = 0; j < n; ++j) {
                out[i * n + j] /= sum;
            }
        }
    }
}

}  // namespace

Attribution valueZeroing(const model::Model& model, const forward::ForwardResult& pass,
                         const AttributionOptions& options) {
    return perLayerAttribution(AttributionMethod::ValueZeroing, model, pass, options.cancel,
                               [&](int l, const LayerTerms& t, Attribution& out, std::size_t at) {
                                   layerScores(model, l, t, out.perLayer.values.data() + at,
                                               options, static_cast<double>(l) / pass.nLayers,
                                               1.0 / pass.nLayers);
                                   postProcess(pass.allowed, out.perLayer.values.data() + at,
                                               out.layers.values.data() + at, pass.nTokens);
                               });
}

}  // namespace attnscope::analysis::detail
