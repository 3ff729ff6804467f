// Typed weight slots, resolved once at load time from the checkpoint's tensor names.
//
// Every matrix is fp32, row-major, in nn.Linear layout [out, in] (GPT-2's Conv1D [in, out]
// weights are transposed at load time, fused QKV split), so the forward pass has one layout.
#pragma once

#include <vector>

#include "attnscope/base/tensor.h"

namespace attnscope::model {

struct Linear {
    Matrix weight;  // [out, in]
    Vector bias;    // [out]; size 0 when the layer has none
};

struct Norm {
    Vector weight;  // [dModel]
    Vector bias;    // [dModel]; size 0 for RMSNorm-style layers
};

struct LayerWeights {
    Linear query;    // [nHeads * headDimK, dModel]
    Linear key;      // [nHeads * headDimK, dModel]
    Linear value;    // [nHeads * headDimV, dModel]
    Linear output;   // [dModel, nHeads * headDimV]
    Norm attnNorm;   // post-norm: after the attention residual; pre-norm: before attention
    Linear ffnUp;    // [dFfn, dModel]
    Linear ffnDown;  // [dModel, dFfn]
    Norm ffnNorm;    // post-norm: after the FFN residual; pre-norm: before the FFN
};

struct Weights {
    Matrix tokenEmbedding;      // [vocabSize, dModel]
    Matrix positionEmbedding;   // [maxPositions, dModel]
    Matrix tokenTypeEmbedding;  // [typeVocabSize, dModel]; empty when the model has none
    Norm embeddingNorm;         // empty unless spec.embeddingNorm
    std::vector<LayerWeights> layers;
    Norm finalNorm;  // empty unless spec.finalNorm
};

}  // namespace attnscope::model
