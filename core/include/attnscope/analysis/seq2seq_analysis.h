// A source and a target through an encoder-decoder model (T5, BART, Marian): the tokens of both
// sides, the pass recording every head of the three kinds (forward/seq2seq_pass.h), per-head
// statistics, and what the alignment view and greedy decoding need.
//
// Teacher forcing follows transformers' training convention (shift_tokens_right): the decoder
// reads its start token and the target's tokens without the last one, so decoder row t is the
// step that produces target token t, and its cross-attention row is that token's soft alignment
// to the source. Pure functions of a const model; thread-safe.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/analysis/word_attention.h"
#include "attnscope/forward/seq2seq_pass.h"

namespace attnscope::analysis {

struct Seq2SeqAnalysis {
    SentenceAnalysis encoder;  // source text and tokens; encoder self-attention
    SentenceAnalysis decoder;  // decoder input tokens; causal self-attention; final states
    SentenceAnalysis cross;    // rows: decoder input tokens; keyTokens: the source's
    std::string targetText;
    // The target's tokens, one per decoder row: what row t produces (its label).
    std::vector<tokenize::Token> targetTokens;

    const SentenceAnalysis& of(forward::AttentionKind kind) const;

    // "→ piece": the target token decoder row t produces, for row labels of cross-attention.
    std::string targetLabel(int t) const;
};

// Tokenizes the source with the model's tokenizer and the target with its target tokenizer
// (Marian's own; else the same), both with their special tokens, and runs the pass. An empty
// target runs the decoder on its start token alone (targetTokens then empty). InvalidArgument
// without a tokenizer, for a model that is not an encoder-decoder, or input the model cannot take.
Seq2SeqAnalysis analyzeSeq2SeqText(const model::Model& model, const std::string& sourceText,
                                   const std::string& targetText,
                                   const forward::ForwardOptions& options = {});

// The same from token ids (labels from the vocabulary); `targetIds` as the target's tokens,
// without the decoder start token.
Seq2SeqAnalysis analyzeSeq2SeqIds(const model::Model& model,
                                  const std::vector<std::int32_t>& sourceIds,
                                  const std::vector<std::int32_t>& targetIds,
                                  const forward::ForwardOptions& options = {});

// A decoded target (greedyTarget's ids) as the target, kept id for id: re-tokenizing the text
// decoded from them can give other ids (T5 decodes [6992 x 8] to a text that re-tokenizes to
// [3, 6992 x 8, 1]), and the teacher-forced rows must be the steps that were decoded. The source
// is tokenized as analyzeSeq2SeqText does; targetText is tokenize::decodeIds of `targetIds`
// with the target tokenizer, and each target token spans the bytes it adds to that text (what
// decoding the first k + 1 ids adds to decoding the first k), so labels and word alignment
// read it as a typed target. Special tokens (the end token) are marked special, as the
// tokenizer marks them. InvalidArgument as analyzeSeq2SeqText.
Seq2SeqAnalysis analyzeSeq2SeqDecoded(const model::Model& model, const std::string& sourceText,
                                      const std::vector<std::int32_t>& targetIds,
                                      const forward::ForwardOptions& options = {});

struct GreedyOptions {
    int maxTokens = 64;  // target tokens generated at most (the end token included)
    CancelToken cancel;
    // After each token: the target so far. Called on the computing thread.
    std::function<void(const std::vector<std::int32_t>&)> onToken;
};

// Greedy decoding of the target for `sourceIds`: from the start token, the most probable next
// token (the pad token excluded, as generation forbids it) until the model's end token
// (eos_token_id) or maxTokens. Returns the target's ids, the end token included when reached.
// The encoder runs once. InvalidArgument without an LM head; Cancelled.
std::vector<std::int32_t> greedyTarget(const model::Model& model,
                                       const std::vector<std::int32_t>& sourceIds,
                                       const GreedyOptions& options = {});

// Whitespace-separated words of `text` (byte spans), aligned to `tokens` made from it: the
// units of one side of the alignment view. Special tokens are units of their own.
WordAlignment wordsOf(const std::string& text, const std::vector<tokenize::Token>& tokens);

struct CrossAlignment {
    std::vector<std::string> targetWords;  // rows
    std::vector<std::string> sourceWords;  // columns
    Matrix weights;                        // [target words, source words]
};

// Word-level cross-attention, as dependency scoring builds word maps (word_attention.h): the
// attention of one head, or (head = -1) the mean of all heads of `layer`; columns summed over
// each source word's tokens, rows aggregated over each target word's tokens by `agg`. Only
// words are kept (special tokens dropped), so rows need not sum to 1. Rows are target words as
// produced (targetTokens); InvalidArgument when the analysis has no target text.
CrossAlignment crossAlignment(const Seq2SeqAnalysis& a, int layer, int head = -1,
                              FromAggregation agg = FromAggregation::Mean);

}  // namespace attnscope::analysis
