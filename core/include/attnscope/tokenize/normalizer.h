// The normalizers of a tokenizer.json besides BertNormalizer, and the chain that runs them:
//   Prepend   HF's Prepend: put a string before a non-empty text (Llama's "▁"); the new
//             characters share the span of the first character.
//   Replace   HF's Replace with a String pattern (Llama's ' ' -> "▁"); the replacement takes the
//             span of the last character it replaces.
//   NFC       Unicode NFC (Qwen2), computed by utf8proc; see `nfc` for the spans.
//   Bert      BertNormalizer (bert_normalizer.h).
// A Sequence in tokenizer.json becomes the list of its steps, run in order. Pure functions;
// thread-safe; no errors.
#pragma once

#include <string>
#include <vector>

#include "attnscope/tokenize/bert_normalizer.h"
#include "attnscope/tokenize/normalized_text.h"

namespace attnscope::tokenize {

enum class NormalizerKind { Bert, Prepend, Replace, Nfc };

struct NormalizerStep {
    NormalizerKind kind = NormalizerKind::Bert;
    BertNormalizerOptions bert;  // Bert
    std::u32string text;         // Prepend: what to prepend; Replace: the pattern (not empty)
    std::u32string content;      // Replace: what replaces each occurrence
};

NormalizedText normalize(const NormalizedText& text, const std::vector<NormalizerStep>& steps);

// Inserts `prefix` before the first character when the text is not empty (HF's
// NormalizedString::prepend): every inserted character shares the first character's span.
void prependText(NormalizedText& text, std::u32string_view prefix);

// Replaces every non-overlapping occurrence of `pattern`, left to right. Each character of
// `content` gets the span of the last replaced character, as HF's NormalizedString::replace
// aligns inserted characters with the one before them.
NormalizedText replaceText(const NormalizedText& text, std::u32string_view pattern,
                           std::u32string_view content);

// NFC. The text is cut where composition cannot reach across (before a character that is a
// starter, decomposes to a starter and never composes with what precedes it); each piece is
// composed by utf8proc. Spans follow HF's positional rule: a piece of n characters that becomes
// m <= n characters gives its first output character the span of its first input character
// (so "e" + U+0301 -> "é" spans the "e", as HF reports it) and the others the spans of the last
// m - 1 inputs; a piece that grows gives the extra characters the span of its last input.
NormalizedText nfc(const NormalizedText& text);

}  // namespace attnscope::tokenize
