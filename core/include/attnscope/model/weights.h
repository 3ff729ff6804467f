// Typed weight slots, resolved once at load time from the checkpoint's tensor names.
//
// Every matrix is row-major, in nn.Linear layout [out, in] (GPT-2's Conv1D [in, out] weights are
// transposed at load time, fused QKV split), so the forward pass has one layout. The big
// matrices (layer projections, token embedding, untied decoder) are fp32 or, when loaded with
// WeightPrecision::AsStored, the F16/BF16 bits they were stored as; the rest is always fp32.
#pragma once

#include <cstdint>
#include <vector>

#include "attnscope/base/tensor.h"
#include "attnscope/ops/weight_types.h"

namespace attnscope::model {

// The matrices the ops multiply by are theirs (ops/weight_types.h).
using ops::HalfMatrix;
using ops::Linear;
using ops::Norm;

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
    // Decoder layers of encoder-decoder models (spec.crossAttention): queries from the decoder,
    // keys and values from the encoder's output. Empty otherwise.
    Linear crossQuery;   // [nHeads * headDimK, dModel]
    Linear crossKey;     // [nKvHeads * headDimK, dModel]
    Linear crossValue;   // [nKvHeads * headDimV, dModel]
    Linear crossOutput;  // [dModel, nHeads * headDimV]
    Norm crossNorm;      // post-norm: after the cross-attention residual; pre-norm: before it
    // Later decoders (spec.qkNorm, NormPlacement::Sandwich / Output). Empty otherwise.
    Norm queryNorm;     // [headDimK] per head, or [nHeads * headDimK] whole
    Norm keyNorm;       // [headDimK] per head, or [nKvHeads * headDimK] whole
    Norm postAttnNorm;  // on the attention's output, before the residual add
    Norm postFfnNorm;   // on the feed-forward's output, before the residual add
};

// Final hidden state -> vocabulary logits. MLM heads (BERT family) first transform the state
// (dense, activation, LayerNorm); causal LM heads project it directly.
struct PredictionHead {
    Linear transform;    // [dModel, dModel]; empty for causal LM heads
    Norm transformNorm;  // empty for causal LM heads
    Linear decoder;      // [vocabSize, dModel], no bias; empty when tied to the token embedding
    Vector bias;         // [vocabSize]; size 0 when the head has none
};

struct Weights {
    // [vocabSize, dModel], no bias. A Linear because a tied prediction head multiplies by it,
    // and so it can stay half precision (ops::weightRows reads the rows a sentence needs).
    Linear tokenEmbedding;
    Matrix positionEmbedding;   // [maxPositions, dModel]; empty with RoPE
    Matrix tokenTypeEmbedding;  // [typeVocabSize, dModel]; empty when the model has none
    Norm embeddingNorm;         // empty unless spec.embeddingNorm
    Matrix relativeBias;        // [relativeBuckets, nHeads] (T5); empty otherwise
    std::vector<LayerWeights> layers;
    Norm finalNorm;             // empty unless spec.finalNorm
    PredictionHead prediction;  // used only when spec.prediction != None

    // Bytes the weights take in memory, as held (fp32, half precision or ggml blocks).
    std::size_t memoryBytes() const;

    // Every linear layer: the token embedding, the prediction head's and every layer's.
    std::vector<Linear*> linears();
    std::vector<const Linear*> linears() const;

    // The decoder matrix of the prediction head: its own or the tied token embedding.
    const Linear& decoder() const {
        return prediction.decoder.empty() ? tokenEmbedding : prediction.decoder;
    }
};

}  // namespace attnscope::model
