// Added tokens ([CLS], [MASK], <|endoftext|>, <mask>, user additions) found in the text itself,
// the way Hugging Face's AddedVocabulary finds them:
//   - tokens with normalized=false are matched in the raw text, before normalization;
//   - tokens with normalized=true are matched in each normalized piece, against their own
//     normalized form;
//   - matching is leftmost-longest and non-overlapping;
//   - single_word discards a match touching a word character (regex \w) on either side;
//   - lstrip / rstrip make the match swallow the whitespace on its left / right.
// Immutable after construction; `split` is const and thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "attnscope/tokenize/normalized_text.h"

namespace attnscope::tokenize {

struct AddedToken {
    std::string content;
    std::int32_t id = 0;
    bool special = false;
    bool singleWord = false;
    bool lstrip = false;
    bool rstrip = false;
    bool normalized = false;
};

// The two matching passes: raw text (tokens with normalized=false) and normalized pieces
// (tokens with normalized=true).
enum class AddedTokenPass { Raw, Normalized };

// A piece of a split text: either a matched added token or plain text to process further.
struct AddedSplit {
    CharRange range;
    std::optional<std::size_t> token;  // index into AddedVocabulary::tokens()
};

class AddedVocabulary {
public:
    using Normalizer = std::function<NormalizedText(const NormalizedText&)>;

    AddedVocabulary() = default;
    // `normalize` turns a token's content into the form normalized tokens are matched in (the
    // identity when the tokenizer has no normalizer).
    AddedVocabulary(std::vector<AddedToken> tokens, const Normalizer& normalize);

    // Splits `text` on the tokens of one pass; the splits cover `text`.
    std::vector<AddedSplit> split(std::span<const NormalizedChar> text, AddedTokenPass pass) const;

    const std::vector<AddedToken>& tokens() const { return m_tokens; }

    bool empty() const { return m_tokens.empty(); }

private:
    struct Pattern {
        std::u32string chars;
        std::size_t token = 0;
    };

    // Patterns of one pass, grouped by first character, longest first.
    using PatternIndex = std::unordered_map<char32_t, std::vector<Pattern>>;

    std::vector<AddedSplit> findMatches(std::span<const NormalizedChar> text,
                                        const PatternIndex& index) const;

    std::vector<AddedToken> m_tokens;
    PatternIndex m_raw;
    PatternIndex m_normalized;
};

}  // namespace attnscope::tokenize
