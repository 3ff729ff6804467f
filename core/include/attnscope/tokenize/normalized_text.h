// A normalized text that remembers where each of its characters came from.
//
// Normalization (lower-casing, NFD, removing control characters, spacing out CJK ideographs)
// changes lengths, yet every token must report its span in the text the user typed. As Hugging
// Face's NormalizedString does, each normalized code point keeps the byte span of the original
// character it came from; characters a step inserts (the marks NFD splits off, the spaces around
// an ideograph, the "\u0307" of a lower-cased 'İ') share the span of the character that produced
// them. A token covering normalized characters [i, j) spans original bytes
// [text[i].origBegin, text[j - 1].origEnd).
// Plain values; no errors, no shared state.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "attnscope/tokenize/unicode.h"

namespace attnscope::tokenize {

struct NormalizedChar {
    char32_t cp = 0;
    std::size_t origBegin = 0;  // byte span in the original input
    std::size_t origEnd = 0;
};

using NormalizedText = std::vector<NormalizedChar>;

// A [begin, end) range of character indices into a NormalizedText.
struct CharRange {
    std::size_t begin = 0;
    std::size_t end = 0;
};

// Characters [charBegin, charEnd) of `text`, each aligned to its own bytes.
NormalizedText makeNormalizedText(const DecodedText& text, std::size_t charBegin,
                                  std::size_t charEnd);

// A normalized text with no original behind it (added tokens' patterns, tests); all spans are 0.
NormalizedText makeDetachedText(std::u32string_view chars);

std::u32string codePoints(std::span<const NormalizedChar> text);
std::string toUtf8(std::span<const NormalizedChar> text);

// Inserts `cp` before the first character, sharing its span (HF's NormalizedString::prepend).
void prependChar(NormalizedText& text, char32_t cp);

// Each character replaced by what `transform(cp, parts)` appends for it (lower-casing, a
// decomposition), every part sharing its span.
template <class Transform>
NormalizedText perCharacter(const NormalizedText& text, Transform transform) {
    NormalizedText out;
    out.reserve(text.size());
    std::u32string parts;
    for (const NormalizedChar& c : text) {
        parts.clear();
        transform(c.cp, parts);
        for (const char32_t p : parts) {
            out.push_back({p, c.origBegin, c.origEnd});
        }
    }
    return out;
}

// Rust's char::to_lowercase per character ('İ' -> "i\u0307", both parts sharing its span).
inline NormalizedText lowercaseText(const NormalizedText& text) {
    return perCharacter(text, appendLowercase);
}

}  // namespace attnscope::tokenize
