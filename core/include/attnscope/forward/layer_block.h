// The parts of one transformer layer around its attention, as the forward pass runs them, for
// analyses that take a layer apart (attribution.h: ALTI, value zeroing). The pass itself calls
// these functions, so a layer rebuilt from them equals the recorded one bit for bit. Every
// function works row by row (norms and the FFN act on each token alone), so rows of several
// variants may be stacked into one call. Thread-safe.
#pragma once

#include <functional>

#include "attnscope/base/tensor.h"
#include "attnscope/model/model.h"

namespace attnscope::forward {

// What attention reads from x, the residual stream entering `layer`: LN1(x) for pre-norm (and
// sandwich) models, x itself for post-norm and output-norm ones. [n, dModel]
Matrix attentionInput(const model::Model& model, int layer, const Matrix& x);

// The attention sub-block's output from x and the attention output (after the output
// projection, its bias included): post-norm LN1(x + attn), pre-norm x + attn, sandwich and
// output-norm x + LN(attn) with the norm on the attention's output. [n, dModel]
Matrix attentionResidual(const model::Model& model, int layer, const Matrix& x,
                         const Matrix& attention);

// Decoder layers of encoder-decoder models: what cross-attention's queries read from y, the
// self-attention sub-block's output (pre-norm: its norm; post-norm: y itself), and the
// sub-block's output from y and the cross-attention output (pre-norm y + cross, post-norm
// norm(y + cross)). [n, dModel]
Matrix crossAttentionInput(const model::Model& model, int layer, const Matrix& y);
Matrix crossAttentionResidual(const model::Model& model, int layer, const Matrix& y,
                              const Matrix& cross);

// The layer's output from x, the residual stream entering it, and y, the attention
// sub-block's output: post-norm LN2(y + FFN(y)), pre-norm y + FFN(LN2(y)), sandwich
// y + LN3(FFN(LN2(y))), output-norm y + LN2(FFN(y)); with a parallel residual (GPT-NeoX) the
// FFN reads x instead: y + FFN(LN2(x)). [n, dModel]
Matrix finishLayer(const model::Model& model, int layer, const Matrix& x, Matrix y);

// The same, calling `onFfn` on the feed-forward output (the down projection's result, before
// any norm on it) before it joins the residual stream: activation patching records or replaces
// it there. An empty `onFfn` is the plain layer.
Matrix finishLayer(const model::Model& model, int layer, const Matrix& x, Matrix y,
                   const std::function<void(Matrix&)>& onFfn);

}  // namespace attnscope::forward
