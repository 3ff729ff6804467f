// What the model predicts from its final hidden states: the top tokens of its prediction head.
//
// Masked LMs (BERT family) predict the token AT a position (meaningful at [MASK] / <mask>);
// causal LMs (GPT-2, Llama family) predict the token AFTER it. Pure functions of a loaded model
// and a forward result; thread-safe. Throws InvalidArgument when the model has no prediction
// head (e.g. a BertModel checkpoint) or the position is out of range.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attnscope/base/cancel.h"
#include "attnscope/base/tensor.h"
#include "attnscope/forward/forward_result.h"
#include "attnscope/model/model.h"

namespace attnscope::forward {

struct TokenPrediction {
    std::int32_t id = 0;
    std::string token;  // the vocabulary piece, or "#<id>" when the model has no vocabulary
    float probability = 0.0f;
    float logit = 0.0f;
};

bool hasPredictionHead(const model::Model& model);

// The vocabulary piece of token `id`, or "#<id>" when the model has no vocabulary (or no piece
// for it): how predictions and the circuit commands name a token.
std::string tokenPiece(const model::Model& model, std::int32_t id);

// Encoder-decoder models predict the next target token from the decoder's output (pass
// Seq2SeqResult::decoder as the result); their head is the decoder's.
// "masked LM" / "causal LM" / "sequence-to-sequence LM" / "none", for the CLI and the app.
std::string predictionKindName(const model::Model& model);

// Vocabulary logits [rows, vocabSize] for final hidden states [rows, dModel].
Matrix vocabularyLogits(const model::Model& model, const Matrix& hidden);

// Positions holding the tokenizer's mask token ([MASK] / <mask>): where a masked LM is asked
// by default. Empty without a tokenizer or mask token.
std::vector<int> maskTokenPositions(const model::Model& model,
                                    const std::vector<std::int32_t>& ids);

// The k most probable tokens at `position` (softmax over the whole vocabulary), best first;
// ties broken by the lower id.
std::vector<TokenPrediction> topPredictions(const model::Model& model, const ForwardResult& r,
                                            int position, int k);

// Greedy continuation of a causal LM: `steps` times, the forward pass over the whole sequence
// so far and the most probable next token appended (ties broken by the lower id, as llama.cpp's
// greedy sampler does). Stops early when the sequence reaches the model's longest; returns the
// appended ids. Throws InvalidArgument for a model that is not a causal LM.
std::vector<std::int32_t> greedyContinuation(const model::Model& model,
                                             std::vector<std::int32_t> ids, int steps,
                                             const CancelToken& cancel = {});

}  // namespace attnscope::forward
