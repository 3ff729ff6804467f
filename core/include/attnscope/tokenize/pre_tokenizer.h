// Pre-tokenizers: split a normalized text into the words the model sees.
//
//   bertPreTokenize      HF's BertPreTokenizer: split on whitespace (dropped), then make every
//                        punctuation character a word of its own.
//   ByteLevelSplitter    HF's ByteLevel pre-tokenizer split: the GPT-2 regex, run with PCRE2.
//   byteToUnicode        GPT-2's table from the 256 byte values to printable characters.
//
// Results are character ranges into the input. ByteLevelSplitter owns a compiled PCRE2 pattern;
// `split` is const and may be called from several threads at once (each call uses its own
// match data). Construction throws Error if PCRE2 rejects the pattern (a build problem).
#pragma once

#include <array>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "attnscope/tokenize/normalized_text.h"

namespace attnscope::tokenize {

std::vector<CharRange> bertPreTokenize(std::span<const NormalizedChar> text);

class ByteLevelSplitter {
public:
    ByteLevelSplitter();
    ~ByteLevelSplitter();
    ByteLevelSplitter(const ByteLevelSplitter&) = delete;
    ByteLevelSplitter& operator=(const ByteLevelSplitter&) = delete;

    // Splits `text` into the regex matches and the (rare) gaps between them, in order; the
    // ranges cover the whole text.
    std::vector<CharRange> split(std::span<const NormalizedChar> text) const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// byteToUnicode()[b] is the character that stands for byte b in byte-level vocabularies
// ("Ġ" for ' ', "Ċ" for '\n').
const std::array<char32_t, 256>& byteToUnicode();

// The byte-level spelling of raw bytes: each byte replaced by its stand-in character, as UTF-8.
std::string byteLevelString(std::string_view bytes);

}  // namespace attnscope::tokenize
