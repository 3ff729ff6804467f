// How a vocabulary's added tokens and model pieces answer questions about ids, as Hugging Face's
// tokenizers do: an added token wins over a piece with the same text or id, and counts towards
// the size only when the model lacks it. One rule for HfTokenizer, the vocabulary read alone
// (token_vocabulary.cpp) and the loaders' special-role lookups (findToken).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "attnscope/tokenize/added_vocabulary.h"
#include "attnscope/tokenize/vocab.h"

namespace attnscope::tokenize::detail {

// As get_vocab_size(with_added_tokens=true).
std::size_t sizeWithAdded(const Vocab& pieces, std::span<const AddedToken> added);

std::optional<std::int32_t> idOfToken(const Vocab& pieces, std::span<const AddedToken> added,
                                      std::string_view token);

// Empty for an id neither has.
std::string tokenOfId(const Vocab& pieces, std::span<const AddedToken> added, std::int32_t id);

}  // namespace attnscope::tokenize::detail
