// One forward pass of any supported architecture, driven by its ModelSpec, recording every
// layer x head: scaled logits, the mask, probabilities, row entropies and head outputs.
//
// Takes a const Model (shareable between threads), checks the cancel token between layers
// (throws Cancelled) and reports progress per layer. Throws InvalidArgument for inputs the
// model cannot take (empty, too long for its positions, token ids outside the vocabulary).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "attnscope/base/cancel.h"
#include "attnscope/forward/attention_what_if.h"
#include "attnscope/forward/forward_result.h"
#include "attnscope/forward/interventions.h"
#include "attnscope/model/model.h"
#include "attnscope/ops/mask.h"

namespace attnscope::forward {

enum class MaskKind {
    ModelDefault,   // what the model was trained with: causal for GPT-2, none for BERT
    Bidirectional,  // every query sees every key
    Causal,         // bottom-right aligned: query q sees key k iff k <= q + causalOffset
    Custom,         // `custom` says which keys each query may see
};

struct MaskChoice {
    MaskKind kind = MaskKind::ModelDefault;
    int causalOffset = 0;              // for Causal; 0 = the usual lower triangle
    std::optional<BoolMatrix> custom;  // [nTokens, nTokens] for Custom; 1 = allowed
    int paddingTokens = 0;             // the last N tokens are padding: no query may see them
    // Adds the model's sliding window (Mistral) to causal masks; no effect for other models.
    bool modelWindow = true;
};

struct ForwardOptions {
    MaskChoice mask;
    std::optional<float> scale;  // overrides the model's scale in every layer
    // QK-norm and soft-cap what-ifs (attention_what_if.h), in every layer.
    AttentionWhatIf whatIf;
    // Also record, per head and query row, the largest |logit| the projections would give
    // without any QK-norm (ForwardResult::rowMaxAbsUnnormed): one more q·kᵀ per head on layers
    // that normalise q and k.
    bool recordUnnormed = false;
    // Full maps are recorded only if fullRecordBytes(spec, n) fits; otherwise the pass keeps
    // per-head summaries and each layer's input (recomputeHead). Unset: always record.
    std::optional<std::size_t> mapBudgetBytes;
    CancelToken cancel;
    ProgressFn progress;  // fraction of layers done
    // Heads to ablate (interventions.h); empty: the plain pass, bit for bit.
    Interventions interventions;
    // Keep the residual stream entering each layer (ForwardResult::layerStates), so that
    // runForwardFrom can restart from any layer, and each layer's value projections
    // (ForwardResult::layerValues).
    bool keepLayerStates = false;
    // Activations taken from other passes (patches.h); empty: the plain pass, bit for bit.
    Patches patches;
    // Record every layer's activations for patches to read (ForwardResult::layerQueries and
    // the rest); implies keepLayerStates.
    bool recordActivations = false;
};

struct ForwardInput {
    std::vector<std::int32_t> tokenIds;
    std::vector<std::int32_t> tokenTypeIds;  // empty: all 0
};

ForwardResult runForward(const model::Model& model, const ForwardInput& input,
                         const ForwardOptions& options = {});

// runForward(model, input, options), reusing `clean` below the first ablated or patched layer:
// its maps, summaries, recorded activations and the residual stream entering that layer; only
// the layers from there on run. Equals runForward with the same options bit for bit. `clean`
// must be a pass over the same input with the same mask, scale and map budget, kept layer
// states (recorded activations when these options record them) and no ablation or patch below
// that layer; InvalidArgument otherwise (what can be checked: tokens, mask name, scales,
// what-ifs, recording mode, layer states, ablations, patches).
ForwardResult runForwardFrom(const model::Model& model, const ForwardResult& clean,
                             const ForwardInput& input, const ForwardOptions& options);

// Every head's mean output (context row) of clean passes over `sequences`, pooled over all
// query positions of all sequences (not per position): what Mean ablation puts in each row.
// `options` gives the mask and scale; its interventions, patches and map budget are ignored.
HeadMeans computeHeadMeans(const model::Model& model,
                           const std::vector<std::vector<std::int32_t>>& sequences,
                           const ForwardOptions& options = {});

// Memory the full maps of n tokens take: logits and probabilities (n² each) and head outputs
// (n × headDimV) for every layer × head, in fp32.
std::size_t fullRecordBytes(const model::ModelSpec& spec, int nTokens);

// The mask `choice` gives for n tokens in `layer`, and its name for exports: "none"
// (bidirectional), "causal", "causal (offset k)", "custom", with " + window W" when the model's
// sliding window applies (" + window W in local layers" when only some layers have it) and
// " + N padding" when padding is masked.
ops::MaskSpec maskSpecFor(const model::ModelSpec& spec, const MaskChoice& choice, int nTokens,
                          int layer = 0);
std::string maskKindName(const model::ModelSpec& spec, const MaskChoice& choice);

// Whether `choice` gives some layers of `spec` a window and others none (Gemma 2/3's local and
// global layers): the pass then records both masks (ForwardResult::allowedFor).
bool layersDifferInMask(const model::ModelSpec& spec, const MaskChoice& choice);

}  // namespace attnscope::forward
