// The settings the ops take (ops/layer_ops.h, ops/rope.h), as plain values. They belong to the
// ops, not to the model layer, so the primitives can be used and tested without a model;
// model::ModelSpec holds them for an architecture.
#pragma once

#include <vector>

namespace attnscope::ops {

enum class Activation { Gelu, GeluTanh, Relu, Silu };

// LayerNorm subtracts the mean and adds a bias; RMSNorm (Llama family) only rescales.
enum class NormKind { LayerNorm, RmsNorm };

// Which dimensions of a head RoPE rotates together (methods.md §7.1). HalfSplit is Hugging
// Face's rotate_half (pairs k, k + d/2); Interleaved is GPT-J / Meta (pairs 2k, 2k + 1).
enum class RopePairing { HalfSplit, Interleaved };

// LongRope (Phi-3): each frequency divided by a factor of its own, short or long by the
// sequence's length (methods.md §13), and cos/sin scaled by an attention factor.
enum class RopeScaling { None, Linear, Llama3, LongRope };

// Rotary position embedding of the queries and keys; `dims == 0` means the model has none.
struct RopeSpec {
    int dims = 0;  // rotated dimensions per head: head_dim * partial_rotary_factor
    double theta = 10000.0;
    RopePairing pairing = RopePairing::HalfSplit;
    RopeScaling scaling = RopeScaling::None;
    double factor = 1.0;  // linear and llama3
    double lowFreqFactor = 1.0;
    double highFreqFactor = 4.0;
    double originalMaxPositions = 8192.0;
    // GGUF's rope_freqs tensor (llama.cpp's form of Llama 3 scaling): frequency k is divided
    // by factor k, after any scaling above. Empty: none.
    std::vector<float> frequencyFactors;
    // LongRope: one factor a rotated pair, used for sequences up to originalMaxPositions
    // (short) or longer (long); attentionFactor multiplies cos and sin.
    std::vector<float> shortFactors;
    std::vector<float> longFactors;
    double attentionFactor = 1.0;

    // inv_freq[k] for k < dims / 2 after scaling (HF _compute_*_rope_parameters), for a pass
    // whose largest position id is `lastPosition` (LongRope picks its factors by it).
    std::vector<float> inverseFrequencies(int lastPosition = 0) const;
};

}  // namespace attnscope::ops
