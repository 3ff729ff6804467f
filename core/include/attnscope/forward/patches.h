// Activation patches (issue 34; methods.md §12.3): a forward pass that takes some of its
// activations from another pass over a prompt of the same length — the clean run's values in a
// corrupted run (denoising) or the reverse (noising), or a path-patching run's saved queries,
// keys or values. Plain values; the source passes are shared, immutable ForwardResults that
// recorded their activations (ForwardOptions::recordActivations).
//
// Sites, each at every position or at one (the source's row replaces the pass's own):
//  - Residual: the residual stream entering `layer` (layer 0: the embeddings' output);
//  - AttnOut:  the layer's attention output, the output projection's result with its bias,
//              before any norm on it and before the residual sum (norms act per row, so patching
//              a row here equals patching the normed row);
//  - MlpOut:   the layer's feed-forward output (down projection with its bias), likewise;
//  - HeadOutput: query head `unit`'s output z = probs·V (before W_O);
//  - Query: query head `unit`'s queries; Key / Value: key/value head `unit`'s keys or values —
//    as attention uses them (after any QK-norm and RoPE). A key or value patch acts on the
//    whole key/value group: the model has no per-query-head keys to patch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attnscope/base/tensor.h"

namespace attnscope::model {
struct ModelSpec;
}

namespace attnscope::forward {

struct ForwardResult;

enum class PatchSite : std::uint8_t { Residual, AttnOut, MlpOut, HeadOutput, Query, Key, Value };

// "resid", "attn-out", "mlp-out", "z", "q", "k", "v".
std::string patchSiteName(PatchSite site);

// Whether the site belongs to one head (or key/value head) rather than the whole layer.
bool isHeadSite(PatchSite site);

struct ActivationPatch {
    PatchSite site = PatchSite::Residual;
    int layer = 0;
    int unit = 0;       // query head (HeadOutput, Query), key/value head (Key, Value); else unused
    int position = -1;  // -1: every position
    std::shared_ptr<const ForwardResult> source;  // recorded its activations
};

// "resid L2 @3", "z L1H0", "k L1G1 @all": how errors and reports name a patch.
std::string describe(const ActivationPatch& p);

struct Patches {
    std::vector<ActivationPatch> items;

    bool empty() const { return items.empty(); }

    // The lowest patched layer; nLayers when there is no patch.
    int firstLayer(int nLayers) const;
};

// Throws InvalidArgument naming the patch for a layer, unit or position outside the model or
// the sequence, a missing source, a source over another number of tokens, or one that recorded
// no activations.
void checkPatches(const Patches& patches, const model::ModelSpec& spec, int nTokens);

namespace detail {

// Applies every patch of `patches` at `site` in `layer` whose unit lies in
// [firstUnit, firstUnit + target.cols() / width), at column (unit - firstUnit) * width of target;
// layer sites fill the whole width.
void applyPatches(const Patches& patches, PatchSite site, int layer, const model::ModelSpec& spec,
                  int firstUnit, Matrix& target);

}  // namespace detail

}  // namespace attnscope::forward
