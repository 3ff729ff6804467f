// The steps of the forward pass that the encoder-decoder pass (seq2seq_pass.cpp) runs too, so
// that an encoder or a decoder stack is computed by the very code of the one-stack pass.
// Internal to attnscope_core.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "attnscope/forward/forward_pass.h"
#include "layer_attention.h"

namespace attnscope::forward::detail {

// What the layers of one pass share besides the model.
struct Pass {
    AttentionContext ctx;
    // Models whose layers differ (Gemma 2/3): the windowed layers' context (their mask, and
    // Gemma 3's local rope), used where `windowed` marks the layer.
    AttentionContext windowedCtx;
    std::vector<std::uint8_t> windowed;

    const AttentionContext& ctxFor(int layer) const {
        return !windowed.empty() && windowed[static_cast<std::size_t>(layer)] != 0 ? windowedCtx
                                                                                   : ctx;
    }

    std::vector<int> pos;
    // Decoder stacks of encoder-decoder models: the cross-attention sub-block, run on the
    // self-attention sub-block's output y of `layer`; returns its own output. Empty otherwise.
    std::function<Matrix(int layer, Matrix y)> cross;
};

// Whether the pass keeps its layer states (asked for, or implied by recording activations).
inline bool keepsStates(const ForwardOptions& options) {
    return options.keepLayerStates || options.recordActivations;
}

// Token (times the model's embedding scale), position and type embeddings, and the embedding
// norm. [n, dModel]
Matrix embed(const model::Model& m, const ForwardInput& input, const std::vector<int>& pos);

// `layer`'s mask (as `mask` and the model's windows give it) as a bias, T5's relative bias and
// the rope table of `layer`'s rotary settings, for tokens at `pos`.
void buildContext(const model::Model& m, const MaskChoice& mask, const std::vector<int>& pos,
                  int layer, AttentionContext& ctx);

// Checks the input and options and sizes the result: everything before the first layer.
ForwardResult prepare(const model::Model& m, const ForwardInput& input,
                      const ForwardOptions& options, Pass& pass);

// Shapes `r` as `spec`'s record of one row per query in `queryIds` and `nKeys` key columns (0:
// self-attention, the queries are the keys), and sizes its per-head summaries; the maps (logits,
// probabilities, head outputs) too when `withMaps`.
void sizeRecord(ForwardResult& r, const model::ModelSpec& spec,
                const std::vector<std::int32_t>& queryIds, int nKeys, bool withMaps);

// Runs layers [first, nLayers) on x, the residual stream entering `first`, and the final norm.
void runLayers(const model::Model& m, const ForwardOptions& options, const Pass& pass, int first,
               Matrix x, ForwardResult& r);

// Every head of `layer` on projections `p` (queries [nQueries, ...], keys and values
// [nKeys, ...]) with ctx's bias [nQueries, nKeys], recorded into `r` (maps, summaries, fully
// masked rows). Returns the heads' outputs side by side, [nQueries, nHeads * headDimV].
Matrix attendHeads(const model::ModelSpec& spec, const Projections& p, int layer,
                   const AttentionContext& ctx, float scale, ForwardResult& r);

// NaN or Inf in the hidden states spreads to every later layer; say where it first appeared, so
// a map of NaN is never shown as if it were attention.
void noteNonFinite(ForwardResult& r, const Matrix& x, int layer);

}  // namespace attnscope::forward::detail
