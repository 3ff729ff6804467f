// Fitting a long input into a model's positions, the way a user who typed too much expects:
// keep the beginning, cut between tokens, and let the tokenizer add its special tokens again
// ([CLS] … [SEP] stays well formed, unlike cutting the token list itself).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/tokenize/tokenizer.h"

namespace attnscope::analysis {

// The longest prefix of `text` that ends where one of its tokens ends and whose encoding,
// special tokens included, has at most `maxTokens` tokens; `text` itself when it fits, empty when
// not even its first token does. The prefix is encoded again to check it, because a cut can
// change how the last word splits; the cut is found by bisection over the token ends, so a long
// text costs a few encodings, not one per token.
std::string fittingPrefix(const tokenize::Tokenizer& tokenizer, std::string_view text,
                          std::size_t maxTokens);
// The same when the caller has encoded `text` already (`tokens`, its encoding).
std::string fittingPrefix(const tokenize::Tokenizer& tokenizer, std::string_view text,
                          const std::vector<tokenize::Token>& tokens, std::size_t maxTokens);

}  // namespace attnscope::analysis
