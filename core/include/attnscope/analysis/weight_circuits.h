// What each head can do from its weights alone (issue 34; Elhage et al. 2021, "A Mathematical
// Framework for Transformer Circuits"; methods.md §11.2, §12.4), in TransformerLens's conventions
// (row vectors: q = x W_Q):
//  - W_QK = W_Q W_Kᵀ and W_OV = W_V W_O (d_model × d_model) per query head (W_K, W_V of its
//    key/value head), biases left out. Their singular values, through the factored form (QR of
//    each factor, SVD of the small core), never the d_model² matrix.
//  - OV copying score: Σλ / Σ|λ| over the eigenvalues of the full OV circuit W_E W_OV W_U,
//    taken from the d_head × d_head matrix W_O W_U W_E W_V with the same non-zero eigenvalues.
//    +1: the head copies what it attends to. NaN for masked LMs (their head is nonlinear) and
//    models without a prediction head.
//  - Composition of an earlier head h1 into a later h2 (TransformerLens all_composition_scores):
//    C = ‖W_OV^h1 · B‖_F / (‖W_OV^h1‖_F ‖B‖_F), B = W_QK^h2 (Q), W_QK^h2ᵀ (K), W_OV^h2 (V);
//    0 unless h2 is in a later layer. Beside it the random-matrix baseline 1/√d_model (the root
//    mean square of C for independent random heads: E‖AB‖²_F = ‖A‖²_F ‖B‖²_F / d_model).
//  - Positional previous-token score (learned positions, causal models; NaN elsewhere): the
//    positional QK circuit P = N(W_pos) W_QK N(W_pos)ᵀ / √d_head over the first
//    min(positions, 64) positions (N: each row centred and scaled to unit RMS, eps included —
//    the LayerNorm a position vector alone would get, its weight already in W_QK), and the mean
//    over queries i ≥ 1 of softmax_{j ≤ i}(P[i, ·]) at j = i − 1.
// Weight processing (TransformerLens from_pretrained: fold_ln, center_writing_weights,
// center_unembed): the norm before attention (pre-norm: the layer's; post-norm BERT: the
// embedding LayerNorm for layer 0, the previous layer's output LayerNorm after; none when
// attention reads the stream unnormed, OLMo-2) scales W_Q, W_K, W_V's d_model rows (Gemma's
// 1 + w); LayerNorm models then centre those over d_model, and centre the writing weights W_O,
// W_E over d_model. The final norm's weight scales W_U's rows (centred over d_model for
// LayerNorm), then W_U is centred over the vocabulary. QK-norm weights are folded into W_Q and
// W_K's columns and the norms' division by the RMS is left out (a linearisation). Gemma 2's
// post-attention norm and every soft-cap are left out; RoPE models are read unrotated (the
// scores are those of offset 0). Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "attnscope/base/cancel.h"
#include "attnscope/model/model.h"

namespace attnscope::analysis {

struct HeadWeights {
    std::vector<double> qkSingular;  // [headDimK] descending
    std::vector<double> ovSingular;  // [headDimV] descending
    double copying = 0;              // NaN where undefined
    double positionalPrevious = 0;   // NaN where undefined
};

struct WeightCircuits {
    int nLayers = 0;
    int nHeads = 0;
    int dModel = 0;
    std::vector<HeadWeights> heads;  // [layer][head]
    // [nLayers * nHeads]²: row h1 (the writer), column h2 (the reader), heads flattened as
    // layer * nHeads + head.
    std::vector<double> compQ;
    std::vector<double> compK;
    std::vector<double> compV;
    double baseline = 0;  // 1 / √d_model

    double composition(const std::vector<double>& scores, int h1, int h2) const {
        return scores[static_cast<std::size_t>(h1) * heads.size() + static_cast<std::size_t>(h2)];
    }
};

// Why `model` has no weight-space scores ("" when it has them): encoder-decoders, T5-style
// relative attention.
std::string weightCircuitsUnsupportedReason(const model::Model& model);

// Every head's scores. Throws InvalidArgument for an unsupported model; Cancelled. Progress:
// fraction of the work done (W_U W_E, the heads' scores, then the composition, each by its
// multiply-adds), rising to 1.
WeightCircuits weightCircuits(const model::Model& model, const CancelToken& cancel = {},
                              const ProgressFn& progress = {});

}  // namespace attnscope::analysis
