// The parts of one transformer layer around its attention, as the forward pass runs them, for
// analyses that take a layer apart (attribution.h: ALTI, value zeroing). The pass itself calls
// these functions, so a layer rebuilt from them equals the recorded one bit for bit. Every
// function works row by row (norms and the FFN act on each token alone), so rows of several
// variants may be stacked into one call. Thread-safe.
#pragma once

#include "attnscope/base/tensor.h"
#include "attnscope/model/model.h"

namespace attnscope::forward {

// What attention reads from x, the residual stream entering `layer`: LN1(x) for pre-norm
// models, x itself for post-norm ones. [n, dModel]
Matrix attentionInput(const model::Model& model, int layer, const Matrix& x);

// The attention sub-block's output from x and the attention output (after the output
// projection, its bias included): post-norm LN1(x + attn), pre-norm x + attn. [n, dModel]
Matrix attentionResidual(const model::Model& model, int layer, const Matrix& x,
                         const Matrix& attention);

// Decoder layers of encoder-decoder models: what cross-attention's queries read from y, the
// self-attention sub-block's output (pre-norm: its norm; post-norm: y itself), and the
// sub-block's output from y and the cross-attention output (pre-norm y + cross, post-norm
// norm(y + cross)). [n, dModel]
Matrix crossAttentionInput(const model::Model& model, int layer, const Matrix& y);
Matrix crossAttentionResidual(const model::Model& model, int layer, const Matrix& y,
                              const Matrix& cross);

// The layer's output from the attention sub-block's output y: post-norm LN2(y + FFN(y)),
// pre-norm y + FFN(LN2(y)). [n, dModel]
Matrix finishLayer(const model::Model& model, int layer, Matrix y);

}  // namespace attnscope::forward
