// The normalizers of a tokenizer.json besides BertNormalizer, and the chain that runs them:
//   Prepend   HF's Prepend: put a string before a non-empty text (Llama's "▁"); the new
//             characters share the span of the first character.
//   Replace   HF's Replace with a String pattern (Llama's ' ' -> "▁"); the replacement takes the
//             span of the last character it replaces.
//   NFC       Unicode NFC (Qwen2), computed by utf8proc; see `nfc` for the spans.
//   NFD, NFKD canonical / compatibility decomposition with canonical reordering (ALBERT's NFKD);
//             every character keeps the span of the character it came from.
//   Lowercase Rust's char::to_lowercase, one character at a time (as BertNormalizer's).
//   StripAccents  drops combining marks (General_Category M), as HF's is_combining_mark.
//   Strip     HF's Strip: drop leading and/or trailing White_Space.
//   Precompiled  SentencePiece's rules from a precompiled_charsmap (precompiled_charsmap.h).
//   Bert      BertNormalizer (bert_normalizer.h).
// Replace takes a String pattern or a Regex (run by RegexSplitter, pre_tokenizer.h).
// A Sequence in tokenizer.json becomes the list of its steps, run in order. Pure functions;
// thread-safe; no errors.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "attnscope/tokenize/bert_normalizer.h"
#include "attnscope/tokenize/normalized_text.h"

namespace attnscope::tokenize {

class PrecompiledCharsmap;
class RegexSplitter;

enum class NormalizerKind {
    Bert,
    Prepend,
    Replace,
    Nfc,
    Nfd,
    Nfkd,
    Lowercase,
    StripAccents,
    Strip,
    Precompiled
};

struct NormalizerStep {
    NormalizerKind kind = NormalizerKind::Bert;
    BertNormalizerOptions bert;  // Bert
    std::u32string text;     // Prepend: what to prepend; Replace: the String pattern (not empty)
    std::u32string content;  // Replace: what replaces each occurrence
    std::shared_ptr<const RegexSplitter> regex;  // Replace with a Regex pattern (else null)
    bool stripLeft = false;                      // Strip
    bool stripRight = false;                     // Strip
    std::shared_ptr<const PrecompiledCharsmap> charsmap;  // Precompiled
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

// NFKD: each character's compatibility decomposition, then canonical reordering as in `nfd`.
NormalizedText nfkd(const NormalizedText& text);

// One step of HF's NormalizedString::transform: `cp` with `change` 0 replaces the next original
// character (taking its span), > 0 is inserted (taking the span of the character consumed
// before it), < 0 replaces the next character and removes the -change after it.
struct CharChange {
    char32_t cp = 0;
    std::ptrdiff_t change = 0;
};

// HF's transform over the whole text, after skipping `initialOffset` characters. Characters a
// list does not consume are dropped, as HF's does.
NormalizedText transformText(const NormalizedText& text, std::span<const CharChange> changes,
                             std::size_t initialOffset);

// HF's Replace with a Regex pattern: each match becomes `content`, aligned as replaceText does.
NormalizedText replaceRegex(const NormalizedText& text, const RegexSplitter& pattern,
                            std::u32string_view content);

}  // namespace attnscope::tokenize
