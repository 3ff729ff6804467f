// Pre-tokenizers: split a normalized text into the words the model sees.
//
//   bertPreTokenize   HF's BertPreTokenizer: split on whitespace (dropped), then make every
//                     punctuation character a word of its own.
//   RegexSplitter     a regex from tokenizer.json (HF runs it with Oniguruma), run with PCRE2 in
//                     UTF + UCP mode: the GPT-2 regex of the ByteLevel pre-tokenizer, or the
//                     pattern of a Split pre-tokenizer (Llama 3, Qwen2).
//   splitPieces       HF's SplitDelimiterBehavior applied to matches (Split, Metaspace).
//   metaspace         HF's Metaspace: ' ' becomes '▁', a '▁' is prepended, optional split.
//   byteToUnicode     GPT-2's table from the 256 byte values to printable characters.
//
// Results are character ranges into the input. RegexSplitter owns a compiled PCRE2 pattern;
// its methods are const and may be called from several threads at once (each call uses its own
// match data). Construction throws UnsupportedModel if PCRE2 rejects the pattern.
#pragma once

#include <array>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/tokenize/normalized_text.h"

namespace attnscope::tokenize {

std::vector<CharRange> bertPreTokenize(std::span<const NormalizedChar> text);

// A piece of a text cut by a pattern: either a match or the text between two matches.
struct MatchPiece {
    CharRange range;
    bool isMatch = false;
};

class RegexSplitter {
public:
    // The GPT-2 regex of HF's ByteLevel pre-tokenizer.
    RegexSplitter();
    // A tokenizer.json pattern in Oniguruma syntax. `\s` and `\S` become the White_Space
    // property (Oniguruma's \s; PCRE2's would also take U+180E); everything else is passed to
    // PCRE2 as is. `literal` takes the pattern as a plain string (a Split's {"String": ...}).
    // `where` names the pattern in error messages.
    RegexSplitter(std::string_view pattern, bool literal, const std::string& where);
    ~RegexSplitter();
    RegexSplitter(const RegexSplitter&) = delete;
    RegexSplitter& operator=(const RegexSplitter&) = delete;

    // The matches and the (possibly empty-free) gaps between them, in order, covering the text.
    std::vector<MatchPiece> find(std::span<const NormalizedChar> text) const;

    // The matches and gaps as plain ranges (what the ByteLevel pre-tokenizer keeps).
    std::vector<CharRange> split(std::span<const NormalizedChar> text) const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// The GPT-2 splitter under its old name.
using ByteLevelSplitter = RegexSplitter;

// HF's SplitDelimiterBehavior: what happens to the matches of a Split (or Metaspace) pattern.
enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

// Applies `behavior` to `pieces` (after `invert` swapped matches and gaps) and drops empty
// ranges, as HF's NormalizedString::split does.
std::vector<CharRange> splitPieces(std::vector<MatchPiece> pieces, SplitBehavior behavior,
                                   bool invert);

enum class PrependScheme { Always, First, Never };

struct MetaspaceOptions {
    char32_t replacement = U'\u2581';
    PrependScheme prependScheme = PrependScheme::Always;
    bool split = true;
};

// HF's Metaspace on one pre-token: spaces become the replacement; the replacement is prepended
// unless the text already starts with it (with scheme First only when the text starts the
// input, i.e. its first character's span starts at byte 0); with `split`, the text is cut before
// every replacement character. Returns the words (each a normalized text of its own).
std::vector<NormalizedText> metaspace(const NormalizedText& text, const MetaspaceOptions& options);

// byteToUnicode()[b] is the character that stands for byte b in byte-level vocabularies
// ("Ġ" for ' ', "Ċ" for '\n').
const std::array<char32_t, 256>& byteToUnicode();

// The byte-level spelling of raw bytes: each byte replaced by its stand-in character, as UTF-8.
std::string byteLevelString(std::string_view bytes);

}  // namespace attnscope::tokenize
