// Direct logit attribution (issue 34; methods.md §12.1): the residual stream at one position
// taken apart into what wrote it — the token embedding, learned positions, every head's output
// (its context row through its slice of W_O, the value bias inside it), each layer's output
// bias and each MLP — each term through the final norm's linearisation at that position and
// dotted with the unembedding of a target token, or of target minus distractor.
//
// The final norm is linearised with the pass's own scale at the position (one scale for every
// term, eps inside it); LayerNorm centres each term, RMSNorm does not; the norm's bias and the
// unembedding's bias are terms of their own. On layers that normalise a sublayer's output before
// the residual add (Gemma 2/3, OLMo-2) each head's term (and the output bias) goes through that
// norm with its scale frozen at the whole sublayer's output. Gemma 2's final soft-cap: the logit
// is decomposed before the cap. The terms sum to that logit (to float rounding; `residual` says
// by how much, and checkSum() throws past a stated tolerance).
//
// Refused (InvalidArgument, with the reason): post-LN models (BERT family: every layer ends in
// its own LayerNorm and the MLM head is nonlinear, so no term reaches the logit alone), encoder-
// decoders, models without a prediction head, results without layer states
// (ForwardOptions::keepLayerStates). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attnscope/forward/forward_result.h"
#include "attnscope/model/model.h"

namespace attnscope::analysis {

enum class DlaTermKind : std::uint8_t {
    Embedding,      // token embedding (times Gemma's √d)
    Positions,      // learned position embeddings (GPT-2)
    Head,           // one query head's output
    OutputBias,     // a layer's attention output bias b_O
    Mlp,            // a layer's feed-forward output
    FinalNormBias,  // the final LayerNorm's bias
    UnembedBias,    // the LM head's bias
};

struct DlaTerm {
    DlaTermKind kind = DlaTermKind::Embedding;
    int layer = -1;  // Head, OutputBias, Mlp
    int head = -1;   // Head
    double value = 0;

    // "embed", "pos", "L3H7", "L3attn_bias", "L3mlp", "final_norm_bias", "unembed_bias": the
    // names the CSV and the reference use.
    std::string name() const;
};

struct LogitAttribution {
    int position = 0;
    std::int32_t target = 0;
    std::optional<std::int32_t> distractor;
    std::vector<DlaTerm> terms;  // embedding first, then layer by layer, then the biases
    double logit = 0;            // the model's logit (difference) before any final cap
    double residual = 0;         // logit − Σ terms: float rounding only

    // The head terms as a [nLayers, nHeads] map in [layer][head] order.
    std::vector<double> headMap(int nLayers, int nHeads) const;
};

// Why `model` has no direct logit attribution, or "" when it has one.
std::string dlaUnsupportedReason(const model::Model& model);

// The attribution at `position` of `r` (a pass of `model` with keepLayerStates) for `target`
// (minus `distractor`). Throws InvalidArgument for a position or token outside the range, or
// when dlaUnsupportedReason is not empty.
LogitAttribution directLogitAttribution(const model::Model& model, const forward::ForwardResult& r,
                                        int position, std::int32_t target,
                                        std::optional<std::int32_t> distractor = std::nullopt);

// Throws Error naming the position when |residual| exceeds `relTolerance` × max(1, |logit|):
// the terms must add up to the logit.
void checkSum(const LogitAttribution& a, double relTolerance = 1e-4);

}  // namespace attnscope::analysis
