// BERT's text normalizer, step for step as Hugging Face's `BertNormalizer`:
//   1. clean_text: drop U+0000, U+FFFD and control characters; whitespace becomes ' '.
//   2. handle_chinese_chars: put a space on both sides of every CJK ideograph.
//   3. strip_accents: NFD, then drop nonspacing marks (Mn). When unset it follows `lowercase`.
//   4. lowercase: Rust's char::to_lowercase, one character at a time (so no final-sigma rule).
// Each step keeps every character aligned to the original bytes (see normalized_text.h).
// Pure functions; thread-safe; no errors.
#pragma once

#include <optional>

#include "attnscope/tokenize/normalized_text.h"

namespace attnscope::tokenize {

struct BertNormalizerOptions {
    bool cleanText = true;
    bool handleChineseChars = true;
    std::optional<bool> stripAccents;  // nullopt: strip when lower-casing, as HF does
    bool lowercase = true;
};

NormalizedText bertNormalize(const NormalizedText& text, const BertNormalizerOptions& options);

// NFD with canonical reordering; decomposed characters keep the span of their source character.
NormalizedText nfd(const NormalizedText& text);

}  // namespace attnscope::tokenize
