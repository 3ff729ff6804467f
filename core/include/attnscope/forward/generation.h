// Attention while generating (issue 34; methods.md §12.5): a causal LM continues a prompt N
// tokens, greedily or sampled (sampling.h), and every step keeps the new query row of every
// layer × head over prompt + generated tokens, with the token chosen and its probability.
//
// The prompt runs as one forward pass (its last row is step 0's); every later step runs one row
// through the layers against a key/value cache (the keys as attention used them: after any
// QK-norm and RoPE at their own positions), so a step costs one row, not a pass. A step's row
// equals the last row of a full pass over the same tokens (to rounding: the products run on one
// row instead of many). The model's own mask (causal, with its sliding windows) and scales; no
// what-ifs or interventions. Positions count from 0 in the cache: for Phi-3's longrope, which
// switches factors once the whole sequence passes original_max_position_embeddings, a cached key
// keeps the rotation it got when it was computed, as in every KV-cached decoder (llama.cpp,
// transformers with its cache), so past that length a step differs from a fresh full pass.
#pragma once

#include <cstdint>
#include <vector>

#include "attnscope/base/cancel.h"
#include "attnscope/forward/sampling.h"
#include "attnscope/model/model.h"

namespace attnscope::forward {

struct GenerationStep {
    std::int32_t token = 0;        // the token chosen after this step's row
    float probability = 0;         // its softmax probability under the model's logits
    float sampledProbability = 0;  // its probability in the sampler's distribution
    int keys = 0;                  // the row's length: the tokens so far (prompt + earlier steps)
    std::vector<float> rows;       // [nLayers, nHeads, keys] this step's query row of every head
    std::vector<float> entropy;    // [nLayers, nHeads] nats
    RowVector logits;              // [vocab] the model's output logits (after any final cap)
};

struct Generation {
    int nLayers = 0;
    int nHeads = 0;
    std::vector<std::int32_t> prompt;
    std::vector<GenerationStep> steps;

    // All tokens: the prompt, then each step's choice.
    std::vector<std::int32_t> tokens() const;
};

// Continues `prompt` by up to `steps` tokens (fewer when the model's positions run out). Throws
// InvalidArgument for a model that is not a causal LM, an empty prompt or one the model cannot
// take (forward_pass.h), steps < 1, bad sampler settings; Cancelled. Progress: steps done.
Generation generate(const model::Model& model, const std::vector<std::int32_t>& prompt, int steps,
                    const SamplerSettings& sampler = {}, const CancelToken& cancel = {},
                    const ProgressFn& progress = {});

}  // namespace attnscope::forward
