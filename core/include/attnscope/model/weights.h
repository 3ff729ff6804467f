// Typed weight slots, resolved once at load time from the checkpoint's tensor names.
//
// Every matrix is fp32, row-major, in nn.Linear layout [out, in] (GPT-2's Conv1D [in, out]
// weights are transposed at load time, fused QKV split), so the forward pass has one layout.
#pragma once

#include <cstdint>
#include <vector>

#include "attnscope/base/tensor.h"

namespace attnscope::model {

// A weight matrix kept in the half precision it was stored in (F16 or BF16 bit patterns),
// [out, in]; widened to fp32 a block of rows at a time inside each product (ops::linear), so a
// model twice the size of fp32 memory still opens.
struct HalfMatrix {
    Eigen::Matrix<std::uint16_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> bits;
    bool bfloat16 = false;  // false: IEEE F16
};

struct Linear {
    Matrix weight;    // [out, in] fp32; empty when `half` holds the weights
    HalfMatrix half;  // [out, in]; empty unless loaded with WeightPrecision::AsStored
    Vector bias;      // [out]; size 0 when the layer has none

    Eigen::Index outputs() const { return half.bits.size() > 0 ? half.bits.rows() : weight.rows(); }
};

struct Norm {
    Vector weight;  // [dModel]
    Vector bias;    // [dModel]; size 0 for RMSNorm-style layers
};

struct LayerWeights {
    Linear query;    // [nHeads * headDimK, dModel]
    Linear key;      // [nKvHeads * headDimK, dModel]
    Linear value;    // [nKvHeads * headDimV, dModel]
    Linear output;   // [dModel, nHeads * headDimV]
    Norm attnNorm;   // post-norm: after the attention residual; pre-norm: before attention
    Linear ffnGate;  // [dFfn, dModel]; empty unless the FFN is gated (SwiGLU)
    Linear ffnUp;    // [dFfn, dModel]
    Linear ffnDown;  // [dModel, dFfn]
    Norm ffnNorm;    // post-norm: after the FFN residual; pre-norm: before the FFN
};

// Final hidden state -> vocabulary logits. MLM heads (BERT family) first transform the state
// (dense, activation, LayerNorm); causal LM heads project it directly.
struct PredictionHead {
    Linear transform;    // [dModel, dModel]; empty for causal LM heads
    Norm transformNorm;  // empty for causal LM heads
    Matrix decoder;      // [vocabSize, dModel]; empty when tied to the token embedding
    Vector bias;         // [vocabSize]; size 0 when the head has none
};

struct Weights {
    Matrix tokenEmbedding;      // [vocabSize, dModel]
    Matrix positionEmbedding;   // [maxPositions, dModel]; empty with RoPE
    Matrix tokenTypeEmbedding;  // [typeVocabSize, dModel]; empty when the model has none
    Norm embeddingNorm;         // empty unless spec.embeddingNorm
    std::vector<LayerWeights> layers;
    Norm finalNorm;             // empty unless spec.finalNorm
    PredictionHead prediction;  // used only when spec.prediction != None

    // The decoder matrix of the prediction head: its own or the tied token embedding.
    const Matrix& decoder() const {
        return prediction.decoder.size() > 0 ? prediction.decoder : tokenEmbedding;
    }
};

}  // namespace attnscope::model
