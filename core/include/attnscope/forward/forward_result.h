// Everything one forward pass recorded, addressable by head.
//
// Per-head arrays are stored contiguously in [layer][head] order, so exports write them in one
// go and views map a head without copying. Immutable once returned; share it as
// std::shared_ptr<const ForwardResult> across threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attnscope/base/head_id.h"
#include "attnscope/base/tensor.h"
#include "attnscope/base/uninitialized_vector.h"
#include "attnscope/forward/attention_what_if.h"
#include "attnscope/forward/interventions.h"
#include "attnscope/forward/patches.h"

namespace attnscope::forward {

struct ForwardResult {
    int nLayers = 0;
    int nHeads = 0;
    int nKvHeads = 0;  // key/value heads per layer; < nHeads with grouped-query attention
    int nTokens = 0;   // query rows of every map
    int headDimV = 0;
    std::vector<std::int32_t> tokenIds;  // [nTokens]
    // Cross-attention (an encoder-decoder's decoder reading the encoder's output): the keys are
    // another sequence's tokens, so maps are [nTokens, nKeys]. 0 (self-attention): the keys are
    // the queries' own tokens. Read through keyCount() and keyIds().
    int nKeys = 0;
    std::vector<std::int32_t> keyTokenIds;  // [nKeys] when nKeys > 0
    // The full maps, when they fit the pass's memory budget (ForwardOptions::mapBudgetBytes);
    // otherwise empty, and recomputeHead (head_record.h) rebuilds any one head exactly.
    bool mapsRecorded = true;
    // Sized without zeroing (uninitialized_vector.h); the pass writes every element.
    FloatBuffer logits;   // [nLayers, nHeads, nTokens, keyCount()] scaled, pre-mask
    FloatBuffer probs;    // [nLayers, nHeads, nTokens, keyCount()]
    FloatBuffer context;  // [nLayers, nHeads, nTokens, headDimV] head outputs
    // Summaries kept in every mode.
    std::vector<float> entropy;      // [nLayers, nHeads, nTokens] nats
    std::vector<float> rowMax;       // [nLayers, nHeads, nTokens] largest weight of each row
    std::vector<float> maxAbsLogit;  // [nLayers, nHeads] over allowed cells
    // Per head and query row ([nLayers, nHeads, nTokens]), the largest |logit| over the row's
    // allowed keys (0 for a fully masked row) at the stages the saturation lab compares:
    //  - rowMaxAbsLogit: as the softmax saw it, `logits` (after any soft-cap);
    //  - rowMaxAbsScaled: q·kᵀ·scale before the soft-cap (equal to the above without one);
    //  - rowMaxAbsUnnormed: the same from q and k before any QK-norm (the model's or the
    //    what-if's), only with ForwardOptions::recordUnnormed, else empty; equal to
    //    rowMaxAbsScaled on layers without QK-norm.
    std::vector<float> rowMaxAbsLogit;
    std::vector<float> rowMaxAbsScaled;
    std::vector<float> rowMaxAbsUnnormed;
    // Without maps: the input each layer's attention read ([nTokens, dModel], after the
    // pre-norm), from which one head is recomputed without a whole forward pass.
    std::vector<Matrix> layerInputs;
    // Without maps: every head's map mean-pooled to previewSize² cells, for overviews such as
    // the model grid. [nLayers, nHeads, previewSize, previewSize]
    int previewSize = 0;
    std::vector<float> previews;
    std::vector<float> scales;  // [nLayers] the scale each layer used
    AttentionWhatIf whatIf;     // the QK-norm and soft-cap what-ifs every layer ran with
    BoolMatrix allowed;         // [nTokens, keyCount()] mask applied to every head
    // Models whose layers differ in their masks (Gemma 2/3: sliding-window local layers and
    // global ones): which layers are windowed ([nLayers], 1 = windowed) and their mask; both
    // empty otherwise, and `allowed` is then every layer's. Read through allowedFor().
    std::vector<std::uint8_t> windowedLayers;
    BoolMatrix windowedAllowed;
    std::string maskKind;               // "none", "causal", "causal (offset -1)", "custom", ...
    std::vector<int> fullyMaskedRows;   // queries with no allowed key (same for every head)
    Matrix hidden;                      // [nTokens, dModel] final hidden states
    std::vector<std::string> warnings;  // e.g. the layer where NaN or Inf first appeared
    // The interventions the pass applied (none for a plain pass) and, per head, the ablation it
    // got ([nLayers, nHeads]; empty in results built by hand). An ablated head's recorded maps
    // and summaries are its ablated ones, so views should say "ablated", not "zero entropy".
    Interventions interventions;
    std::vector<std::optional<AblationKind>> ablated;
    // With ForwardOptions::keepLayerStates: the residual stream entering each layer
    // ([nLayers] x [nTokens, dModel]), from which runForwardFrom restarts a pass.
    std::vector<Matrix> layerStates;
    // With keepLayerStates too: the residual stream after the last layer, before the final
    // norm ([nTokens, dModel]); `hidden` is it normalised. Empty for models without a final norm
    // (there `hidden` is the stream itself).
    Matrix finalResidual;
    // With keepLayerStates too: each layer's value projections as its heads read them,
    // ([nLayers] x [nTokens, nKvHeads * headDimV], b_V included), for attribution methods that
    // take a layer apart (analysis/attribution.h) without projecting again.
    std::vector<Matrix> layerValues;
    // With ForwardOptions::recordActivations (which keeps the layer states and values too): per
    // layer what activation patches read (patches.h), as the layer used them — queries
    // [nTokens, nHeads * headDimK] and keys [nTokens, nKvHeads * headDimK] after any QK-norm
    // and RoPE, the heads' outputs side by side [nTokens, nHeads * headDimV], and the attention
    // and feed-forward outputs [nTokens, dModel] before any norm on them.
    std::vector<Matrix> layerQueries;
    std::vector<Matrix> layerKeys;
    std::vector<Matrix> layerHeadOutputs;
    std::vector<Matrix> layerAttnOut;
    std::vector<Matrix> layerMlpOut;
    // The activation patches the pass applied (none for a plain pass).
    Patches patches;

    int keyCount() const { return nKeys > 0 ? nKeys : nTokens; }

    // The mask `layer`'s heads used.
    const BoolMatrix& allowedFor(int layer) const {
        return !windowedLayers.empty() && windowedLayers[static_cast<std::size_t>(layer)] != 0
                   ? windowedAllowed
                   : allowed;
    }

    const std::vector<std::int32_t>& keyIds() const { return nKeys > 0 ? keyTokenIds : tokenIds; }

    bool isCross() const { return nKeys > 0; }

    // Throw std::logic_error when the maps were not recorded (use recomputeHead).
    ConstMatrixMap attention(HeadId h) const { return map(probs, h); }

    ConstMatrixMap logitsOf(HeadId h) const { return map(logits, h); }

    ConstMatrixMap previewOf(HeadId h) const {
        return {previews.data() + headIndex(h, nHeads) * previewSize * previewSize, previewSize,
                previewSize};
    }

    Eigen::Map<const Vector> rowMaxOf(HeadId h) const {
        return {rowMax.data() + headIndex(h, nHeads) * nTokens, nTokens};
    }

    // One of the row arrays above for head h (rowMaxAbsLogit, rowMaxAbsScaled, ...).
    Eigen::Map<const Vector> rowsOf(const std::vector<float>& perRow, HeadId h) const {
        return {perRow.data() + headIndex(h, nHeads) * nTokens, nTokens};
    }

    Eigen::Map<const Vector> entropyOf(HeadId h) const {
        return {entropy.data() + headIndex(h, nHeads) * nTokens, nTokens};
    }

    ConstMatrixMap contextOf(HeadId h) const {
        requireMaps();
        return {context.data() + headIndex(h, nHeads) * nTokens * headDimV, nTokens, headDimV};
    }

    // Sets head h's rowMax, rowMaxAbsLogit and maxAbsLogit (over the cells its layer's mask
    // allows) from its maps; the forward pass calls it for every head as it goes.
    void summarizeHead(HeadId h, const Eigen::Ref<const Matrix>& headProbs,
                       const Eigen::Ref<const Matrix>& headLogits);

    // summarizeHead for every head from the recorded maps, for results built by hand (tests,
    // importers).
    void summarizeFromMaps();

    // Bytes held by the recorded maps (0 without them).
    std::size_t mapBytes() const {
        return (logits.size() + probs.size() + context.size()) * sizeof(float);
    }

    // The key/value head `h` reads, and how many query heads share each key/value head.
    int kvHeadOf(int head) const { return nKvHeads > 0 ? head / (nHeads / nKvHeads) : head; }

    int kvGroupSize() const { return nKvHeads > 0 ? nHeads / nKvHeads : 1; }

    std::optional<AblationKind> ablationOf(HeadId h) const {
        return ablated.empty() ? std::nullopt
                               : ablated[static_cast<std::size_t>(headIndex(h, nHeads))];
    }

    // Mean of the query rows' entropies, fully masked rows left out.
    float meanEntropy(HeadId h) const;

private:
    void requireMaps() const;

    ConstMatrixMap map(const FloatBuffer& v, HeadId h) const {
        requireMaps();
        const Eigen::Index keys = keyCount();
        return {v.data() + headIndex(h, nHeads) * nTokens * keys, nTokens, keys};
    }
};

}  // namespace attnscope::forward
