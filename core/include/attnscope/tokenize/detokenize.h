// Token ids back to text, for showing what greedy decoding produced and for running it again as
// a target text. Follows the decoders Hugging Face attaches to each kind of tokenizer: WordPiece
// joins "##" continuations and spaces words apart; byte-level BPE maps each piece's characters
// back to bytes (GPT-2's byte alphabet); the SentencePiece family (Llama, T5, ALBERT, Marian:
// BPE with byte fallback, Unigram, SentencePiece models) turns '▁' into a space and <0xNN> pieces
// into their bytes, then drops the one leading space the model's prefix adds; WordLevel pieces are
// joined as they are. Special tokens (those with a role: [CLS], <s>, </s>, <pad>, [MASK]) are left
// out; an id outside the vocabulary reads "<id N>". Bytes that do not form valid UTF-8 become
// U+FFFD, as Python's errors="replace". Pure function; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attnscope/tokenize/tokenizer.h"

namespace attnscope::tokenize {

std::string decodeIds(const Tokenizer& tokenizer, const std::vector<std::int32_t>& ids);

}  // namespace attnscope::tokenize
