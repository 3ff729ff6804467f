// One sentence through one model: tokens (with spans), the forward pass recording every head,
// and per-head statistics. What the GUI's compute worker and the CLI both produce.
// Pure function of its arguments (the model is const); thread-safe.
#pragma once

#include <string>
#include <vector>

#include "attnscope/analysis/head_stats.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"
#include "attnscope/tokenize/tokenizer.h"

namespace attnscope::analysis {

struct SentenceAnalysis {
    std::string text;                     // "" when token ids were given
    std::vector<tokenize::Token> tokens;  // [nTokens]; text = vocabulary piece
    forward::ForwardResult forward;
    std::vector<HeadStats> stats;  // [nLayers * nHeads]
    // Cross-attention (seq2seq_analysis.h): the source's text and tokens, the maps' columns.
    // Empty for self-attention, whose columns are `tokens`.
    std::string keyText;
    std::vector<tokenize::Token> keyTokens;

    // A readable label for token i: the piece with byte-level/WordPiece markers made visible
    // ("Ġthe" -> "·the"), for axis labels.
    std::string label(int i) const;

    // The label of key (column) j: keyTokens' for cross-attention, else label(j).
    std::string keyLabel(int j) const;

    int keyCount() const { return forward.keyCount(); }
};

// The vocabulary piece of `id` (model.vocabulary()), or the id as text when the model has no
// vocabulary or the id no piece.
std::string idPiece(const model::Model& model, std::int32_t id);

// A vocabulary piece made readable: byte-level "Ġ" and SentencePiece "▁" (a space) become
// "·", byte-level "Ċ" (a newline) becomes "↵".
std::string tokenLabel(std::string piece);

// Tokens of a text that the model cannot run, refused with the cause named (issue 30):
// InvalidArgument "the text gives no tokens ..." for none, and for an id beyond the model's
// vocab_size one naming the tokenizer's file ("<dir>: the tokenizer (... from spiece.model)
// gives token 3 ('▁x') the id 40000, but config.json's vocab_size is 32128: ..."), where the
// forward pass would only say "no tokens" or "id 40000 is outside the vocabulary".
void checkTextTokens(const model::Model& model, const std::vector<tokenize::Token>& tokens);

// Tokenizes `text` (InvalidArgument without a tokenizer; checkTextTokens), appends
// `options.mask.paddingTokens` pad tokens when asked, runs the forward pass and the statistics. A
// custom mask whose size no longer matches the tokens is fitted: the overlapping part is kept, new
// cells are allowed.
SentenceAnalysis analyzeText(const model::Model& model, const std::string& text,
                             const forward::ForwardOptions& options);

// The same for `text` already encoded by the model's tokenizer (`tokens`), for callers that
// needed the tokens first (to check their count against the model's positions).
SentenceAnalysis analyzeTokens(const model::Model& model, std::string text,
                               std::vector<tokenize::Token> tokens,
                               const forward::ForwardOptions& options);

// The same from token ids, with no tokenizer needed: labels are the pieces of model.vocabulary(),
// or the ids as numbers without one.
SentenceAnalysis analyzeIds(const model::Model& model, const std::vector<std::int32_t>& ids,
                            const forward::ForwardOptions& options);

}  // namespace attnscope::analysis
