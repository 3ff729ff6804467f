// Choosing the next token from a causal LM's logits, as llama.cpp's common sampler chain does with
// only these samplers on (common/sampling.cpp, src/llama-sampling.cpp): top_k → top_p →
// temperature → dist.
//  - top_k: keep the k largest logits (k ≤ 0: off); ties at the cut go to the lower id.
//  - top_p: softmax over what is left (before the temperature), sort by probability, keep the
//    shortest prefix whose sum reaches p (at least one token; p ≥ 1: off).
//  - temperature: divide the kept logits by t; t ≤ 0 is greedy (argmax, ties to the lower id).
//  - dist: softmax over the kept tokens; a uniform draw of a seeded std::mt19937_64 picks one.
// llama.cpp's own default chain also has min_p 0.05 (and more) on; this one does not. The draw
// is ours: the same seed gives the same tokens here, not the tokens llama.cpp would draw.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "attnscope/base/tensor.h"

namespace attnscope::forward {

struct SamplerSettings {
    float temperature = 0.0f;  // ≤ 0: greedy
    int topK = 0;              // ≤ 0: off
    float topP = 1.0f;         // ≥ 1: off
    std::uint64_t seed = 0;
};

// The distribution the chain draws from, [vocab], 0 for removed tokens (greedy: one-hot on the
// argmax). Throws InvalidArgument for NaN logits or settings (top_p not in (0, 1], a NaN
// temperature).
std::vector<double> samplingDistribution(const RowVector& logits, const SamplerSettings& s);

// Draws one token from `distribution` with `rng` (the token whose cumulative mass first exceeds a
// uniform draw in [0, 1)).
std::int32_t drawToken(const std::vector<double>& distribution, std::mt19937_64& rng);

}  // namespace attnscope::forward
