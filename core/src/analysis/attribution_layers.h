// One layer of a forward pass taken apart for the decomposing methods (attribution.h): the
// per-head transformed values f^h(x_j) of A4 and what the pass computed around them. Internal
// to attnscope_core.
#pragma once

#include <cstddef>
#include <vector>

#include "attnscope/analysis/attribution.h"
#include "attnscope/base/tensor.h"
#include "attnscope/base/threads.h"
#include "attnscope/forward/head_record.h"

namespace attnscope::analysis::detail {

struct LayerTerms {
    explicit LayerTerms(const Matrix& state) : x(state.data(), state.rows(), state.cols()) {}

    ConstMatrixMap x;  // the residual stream entering the layer, [n, D], as the pass kept it
    // [H] x [n, n], the pass's probabilities (A3) and [n, dv] head outputs: views of its record,
    // or of `recomputed` for the heads its map budget dropped.
    std::vector<ConstMatrixMap> probs;
    std::vector<ConstMatrixMap> context;
    std::vector<forward::HeadRecord> recomputed;
    // [H] x [n, D]: row j is f^h(x_j) = v[h, j] W_O^h, b_V inside, b_O not (A4).
    std::vector<Matrix> f;
    Matrix attention;  // [n, D] the layer's attention output, b_O included, as in the pass
    Matrix y;          // the attention sub-block's output (A9): post-LN LN1(x + attention)
};

// Layer `layer` of `pass`, which must have kept its layer states. Without `withOutput`,
// `attention` and `y` stay empty (norm-based needs neither; they cost a quarter of the rest).
// `reuse` takes the previous layer's f, so its buffers serve again instead of being freed and
// faulted in anew for every layer.
LayerTerms layerTerms(const model::Model& model, const forward::ForwardResult& pass, int layer,
                      const CancelToken& cancel, bool withOutput = true,
                      std::vector<Matrix> reuse = {});

// Runs visit(l, t) on every layer's terms in order, checking `cancel` before each layer and
// handing each layer's f buffers on to the next (layerTerms' `reuse`).
template <class Visit>
void forEachLayer(const model::Model& model, const forward::ForwardResult& pass,
                  const CancelToken& cancel, bool withOutput, Visit&& visit) {
    std::vector<Matrix> scratch;
    for (int l = 0; l < pass.nLayers; ++l) {
        cancel.throwIfCancelled();
        LayerTerms t = layerTerms(model, pass, l, cancel, withOutput, std::move(scratch));
        visit(l, t);
        scratch = std::move(t.f);
    }
}

// forEachLayer with the compute threads applied (base/threads.h), calling visit(l, t, at) with
// `at` the offset of layer l's [n, n] map in an Attribution's per-layer values.
template <class Visit>
void forEachLayerMap(const model::Model& model, const forward::ForwardResult& pass,
                     const CancelToken& cancel, bool withOutput, Visit&& visit) {
    applyComputeThreads();
    const auto n = static_cast<std::size_t>(pass.nTokens);
    forEachLayer(model, pass, cancel, withOutput, [&](int l, const LayerTerms& t) {
        visit(l, t, static_cast<std::size_t>(l) * n * n);
    });
}

// The key's summed head terms into `out`: row i is sum_h A[h, i, j] f^h(x_j), [n, D] (A9's M
// without the identity; value zeroing's change when v_j is zeroed). `buffers` hold the gathers,
// reused from one key to the next.
struct KeyTermsBuffers {
    Matrix weights;      // [n, H]: A[h, i, j] for every query i
    Matrix transformed;  // [H, D]: f^h(x_j) for every head
};

void keyTermsInto(const LayerTerms& t, int j, KeyTermsBuffers& buffers, Matrix& out);

// Norm-based (A5), ALTI (A9–A11) and value zeroing (A12–A13) on `pass`.
Attribution normBased(const model::Model& model, const forward::ForwardResult& pass,
                      const AttributionOptions& options);
Attribution alti(const model::Model& model, const forward::ForwardResult& pass,
                 const AttributionOptions& options);
Attribution valueZeroing(const model::Model& model, const forward::ForwardResult& pass,
                         const AttributionOptions& options);

// An Attribution of `method` shaped for `pass`, with its per-layer maps sized and zero; its
// perLayer maps too when `withPerLayer` (the methods that keep each layer's own map).
Attribution emptyAttribution(AttributionMethod method, const forward::ForwardResult& pass,
                             bool withPerLayer = false);

// The methods that keep each layer's own map (ALTI, value zeroing): an empty Attribution of
// `method` with its perLayer maps, filled by visit(l, t, a, at) on every layer's terms, the
// attention output included (forEachLayerMap).
template <class Visit>
Attribution perLayerAttribution(AttributionMethod method, const model::Model& model,
                                const forward::ForwardResult& pass, const CancelToken& cancel,
                                Visit&& visit) {
    Attribution a = emptyAttribution(method, pass, true);
    forEachLayerMap(model, pass, cancel, true,
                    [&](int l, const LayerTerms& t, std::size_t at) { visit(l, t, a, at); });
    return a;
}

}  // namespace attnscope::analysis::detail
