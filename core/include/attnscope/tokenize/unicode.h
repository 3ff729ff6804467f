// Unicode helpers for the tokenizers: UTF-8 decoding with validation, and the character classes
// Hugging Face `tokenizers` uses, defined the way its Rust code defines them.
//
// Character data comes from utf8proc. A few classes are not a single Unicode property but a
// Rust or BERT definition (BERT's "punctuation" includes ASCII symbols such as '$'; Rust's
// `char::is_whitespace` is the White_Space property), so each function says which one it is.
// All functions are pure and thread-safe. `decodeUtf8` throws InvalidArgument.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope::tokenize {

// A text decoded to code points. `byteOffsets` has one entry per code point plus a final one
// equal to the byte length, so code point i spans bytes [byteOffsets[i], byteOffsets[i + 1]).
struct DecodedText {
    std::u32string chars;
    std::vector<std::size_t> byteOffsets;
};

// Byte offset of the first invalid UTF-8 sequence (bad lead or continuation byte, overlong
// form, surrogate, beyond U+10FFFF, truncated), or nullopt when `text` is valid.
std::optional<std::size_t> findInvalidUtf8(std::string_view text);

// Decodes `text`; invalid UTF-8 throws InvalidArgument "<context>: byte N: invalid UTF-8 ...".
DecodedText decodeUtf8(std::string_view text, std::string_view context);

void appendUtf8(std::string& out, char32_t cp);
std::string toUtf8(std::u32string_view text);

// Rust's `char::is_whitespace`: the Unicode White_Space property.
bool isWhiteSpace(char32_t cp);

// BertNormalizer's "control" characters, removed by clean_text: categories Cc, Cf, Co and Cs,
// except '\t', '\n' and '\r' (which it treats as whitespace). Unassigned code points (Cn) are
// kept, as the Rust implementation does.
bool isBertControl(char32_t cp);

// BertNormalizer's whitespace: '\t', '\n', '\r' and White_Space.
bool isBertWhitespace(char32_t cp);

// BertPreTokenizer's punctuation: any ASCII punctuation or symbol
// (!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~) plus every code point of the Unicode P* categories.
bool isBertPunctuation(char32_t cp);

// BertNormalizer's "Chinese character": the CJK Unified Ideographs blocks and extensions it lists
// (not Japanese kana or Hangul).
bool isChineseIdeograph(char32_t cp);

// Unicode category Mn, dropped by strip_accents.
bool isNonspacingMark(char32_t cp);

// Regex `\w` as the Rust `regex` crate defines it (Alphabetic, M*, Nd, Pc, Join_Control), used by
// added tokens' single_word rule. Alphabetic is approximated by L*, Nl and the few So letters
// (circled and squared Latin letters) that carry Other_Alphabetic.
bool isRegexWordChar(char32_t cp);

// Appends Rust's `char::to_lowercase(cp)`: the simple lower-case mapping, except U+0130 'İ',
// whose full mapping is "i\u0307" (the only unconditional multi-character lower-casing).
void appendLowercase(char32_t cp, std::u32string& out);

// Appends the full canonical decomposition of `cp` (what NFD makes of one character before
// canonical reordering).
void appendCanonicalDecomposition(char32_t cp, std::u32string& out);

// Appends the full compatibility decomposition of `cp` (what NFKD makes of one character before
// canonical reordering); `cp` itself when it has none.
void appendCompatibilityDecomposition(char32_t cp, std::u32string& out);

// The canonical combining class used by NFD's reordering step.
int combiningClass(char32_t cp);

}  // namespace attnscope::tokenize
