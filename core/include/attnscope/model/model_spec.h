// What the shared forward pass needs to know about an architecture: sizes and flags.
//
// A ModelSpec is read from config.json by the architecture's table (model/arch/*.cpp); the
// forward pass never looks at model_type. Plain value type.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attnscope/ops/op_params.h"

namespace attnscope::model {

// The settings the ops take are theirs (ops/op_params.h); the model layer uses them by name.
using ops::Activation;
using ops::NormKind;
using ops::RopePairing;
using ops::RopeScaling;
using ops::RopeSpec;

// Where a layer's norms sit around each sublayer f (attention, feed-forward).
// Post: x = LN(x + f(x)) (BERT family). Pre: x = x + f(LN(x)) (GPT-2, Llama).
// Sandwich: x = x + LN2(f(LN1(x))) (Gemma 2/3). Output: x = x + LN2(f(x)) (OLMo-2).
enum class NormPlacement { Post, Pre, Sandwich, Output };

// QK-norm (methods.md §13): an RMSNorm of the queries and keys before RoPE, over each head's
// features (Qwen3, Gemma 3) or over the whole projection, all heads together (OLMo-2).
enum class QkNorm { None, PerHead, Whole };

// How position ids are assigned to the tokens of one sequence.
enum class PositionScheme {
    Plain,          // i + positionOffset
    SkipPadTokens,  // RoBERTa: pad tokens get padTokenId, others padTokenId + 1 + (non-pad index)
};

enum class DefaultMask { Bidirectional, Causal };

// Plain: down(act(up(x))). Gated (SwiGLU): down(act(gate(x)) * up(x)).
enum class FfnKind { Plain, Gated };

// What turns the final hidden states into vocabulary logits, when the checkpoint has it.
enum class PredictionKind {
    None,
    MaskedLm,  // BERT family: predicts the token at a [MASK] position
    CausalLm,  // GPT-2, Llama family: predicts the next token
};

struct ModelSpec {
    std::string modelType;  // config.json's model_type, e.g. "bert"
    int nLayers = 0;
    int nHeads = 0;
    int nKvHeads = 0;  // key/value heads; query head h reads kv head h / (nHeads / nKvHeads)
    int headDimK = 0;
    int headDimV = 0;
    int dModel = 0;
    int dFfn = 0;
    int vocabSize = 0;
    int maxPositions = 0;          // rows of the position table, or the context length with RoPE
    bool learnedPositions = true;  // a position embedding table (false: RoPE only)
    RopeSpec rope;
    int typeVocabSize = 0;  // 0 when the model has no token-type embedding
    PositionScheme positions = PositionScheme::Plain;
    int positionOffset = 0;
    std::optional<int> padTokenId;
    float normEps = 1e-12f;
    Activation activation = Activation::Gelu;
    NormKind normKind = NormKind::LayerNorm;
    FfnKind ffnKind = FfnKind::Plain;
    NormPlacement normPlacement = NormPlacement::Post;
    bool embeddingNorm = true;  // LayerNorm right after the embeddings (BERT family)
    bool finalNorm = false;     // LayerNorm after the last layer (GPT-2's ln_f)
    DefaultMask defaultMask = DefaultMask::Bidirectional;
    // Mistral's sliding_window: query i sees key j only if i - j < slidingWindow, on top of
    // the causal mask, in every layer, or in the layers slidingLayers marks (Gemma 2/3's local
    // layers, Qwen2/3 from max_window_layers on).
    std::optional<int> slidingWindow;
    std::vector<std::uint8_t> slidingLayers;  // [nLayers] 1 = windowed; empty: every layer
    // Gemma 3: the rotary settings of the windowed layers (rope_local_base_freq, no scaling);
    // the others use `rope`.
    std::optional<RopeSpec> localRope;
    // Gemma: RMSNorm scales by (1 + w). The Hugging Face loader adds the 1 to every norm
    // weight it reads, so the forward pass multiplies by the weights as usual (GGUF files hold
    // them with the 1 added already).
    bool normPlusOne = false;
    QkNorm qkNorm = QkNorm::None;
    // GPT-NeoX: x + attn(ln1(x)) + ffn(ln2(x)), both sublayers reading the layer's input.
    bool parallelResidual = false;
    // GPT-NeoX stores the fused query_key_value head by head ([q | k | v] of each head), not as
    // all queries, then all keys, then all values.
    bool qkvPerHead = false;
    // Gemma 2 soft-capping, tanh(s / cap) · cap: of the scaled attention scores before the mask,
    // and of the final vocabulary logits. 0: none.
    float attnSoftcap = 0.0f;
    float finalLogitSoftcap = 0.0f;
    // Gemma 2/3: the attention scale is query_pre_attn_scalar^-0.5, not head_dim^-0.5.
    std::optional<double> queryPreAttnScalar;
    // Which optional biases the checkpoint carries (Llama's attention_bias, Qwen2's q/k/v
    // biases, mlp_bias); BERT-style tables always read theirs.
    bool qkvBias = true;
    bool outputBias = true;
    bool ffnBias = true;
    bool tieWordEmbeddings = true;  // an absent LM head reuses the token embedding
    PredictionKind prediction = PredictionKind::None;  // set by the loader from the tensors
    Activation headActivation = Activation::Gelu;      // of the MLM head's transform
    // GPT-2's scale_attn_weights=false turns the 1/sqrt(d_k) scale off.
    bool scaleAttention = true;
    // GPT-2's scale_attn_by_inverse_layer_idx: logits of layer l are further divided by l + 1.
    bool scaleByInverseLayer = false;
    // BART, mBART and Marian's scale_embedding: token embeddings times sqrt(d_model).
    float embeddingScale = 1.0f;
    // Marian: the position table is the fixed sinusoidal one, built at load time (not read).
    bool sinusoidalPositions = false;
    // T5: a learned bias per head and relative-position bucket, added to every layer's logits
    // (Weights::relativeBias). 0 buckets: none. Encoders bucket both directions, decoders only
    // the past.
    int relativeBuckets = 0;
    int relativeMaxDistance = 128;
    bool relativeBidirectional = true;
    // T5 with a tied LM head rescales the final hidden state by d_model^-0.5 before it.
    float predictionScale = 1.0f;
    // A decoder stack of an encoder-decoder model: each layer also attends to the encoder's
    // output (LayerWeights' cross-attention slots), between its self-attention and its FFN.
    bool crossAttention = false;
    // config.json's architectures name only a base model (T5Model, BartModel): without its own
    // tensors there is no LM head, even a tied one.
    bool baseModelOnly = false;
    // Encoder-decoder models: the token the decoder input starts with, and the one that ends
    // the target (greedy decoding stops there).
    std::optional<int> decoderStartTokenId;
    std::optional<int> eosTokenId;

    // The scale the model was trained with for `layer`.
    float defaultScale(int layer) const;

    // Longest sequence the position table can embed.
    int maxTokens() const;

    // Whether `layer` applies the sliding window.
    bool windowed(int layer) const {
        return slidingWindow.has_value() &&
               (slidingLayers.empty() || slidingLayers[static_cast<std::size_t>(layer)] != 0);
    }

    // Whether the layers differ in their masks (some windowed, some not).
    bool mixedWindows() const;

    // The rotary settings of `layer`.
    const RopeSpec& ropeOf(int layer) const {
        return localRope && windowed(layer) ? *localRope : rope;
    }

    // The key/value head query head `head` reads (grouped-query attention).
    int kvHeadOf(int head) const { return nKvHeads > 0 ? head / (nHeads / nKvHeads) : head; }
};

std::string activationName(Activation a);

// "post-norm", "pre-norm", "pre- and post-sublayer norms", "post-sublayer norms".
std::string normPlacementName(NormPlacement p);

// Parses an activation name as configs spell it ("gelu", "gelu_new", "relu", ...);
// UnsupportedModel "<file>: <key>: ..." for anything else.
Activation parseActivation(const std::string& name, const std::string& file,
                           const std::string& key);

// The widest hidden, feed-forward or all-heads size checkSpec accepts (weight shapes are
// multiplied in int, and no real model comes near it).
inline constexpr std::int64_t kMaxModelWidth = std::int64_t{1} << 24;

// Checks sizes are positive and consistent; FormatError naming the config file otherwise.
void checkSpec(const ModelSpec& spec, const std::string& file);

}  // namespace attnscope::model
