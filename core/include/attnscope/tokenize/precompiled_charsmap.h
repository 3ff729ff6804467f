// Hugging Face's Precompiled normalizer: SentencePiece's normalization rules (nmt_nfkc and the
// like) as a tokenizer.json carries them, base64 in "precompiled_charsmap".
//
// The blob is SentencePiece's own format: a little-endian u32 byte size of a darts-clone double
// array, the array's u32 units, then the replacement strings, each ended by '\0'. A trie lookup
// of a text's bytes yields the offset of its replacement. No library reads this format but
// SentencePiece's (whose normalizer does not keep character alignments) and the Rust crate
// spm_precompiled, so it is read here, unit by unit as that crate does.
//
// The file is hostile until checked: construction walks every trie node reachable from the root
// and checks that each unit a lookup could read lies inside the array and that each replacement
// offset lies inside the strings at a character boundary, so a lookup can never read out of
// bounds. Immutable after construction; `transform` is const and thread-safe. Construction
// throws FormatError "<where>: <reason>".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/tokenize/normalized_text.h"

namespace attnscope::tokenize {

class PrecompiledCharsmap {
public:
    // `blob`: the decoded bytes. `where` names the JSON value in errors ("<file>: <path>").
    PrecompiledCharsmap(std::string_view blob, const std::string& where);

    // Decodes standard base64 (with padding) first; a malformed string is a FormatError.
    static PrecompiledCharsmap fromBase64(std::string_view base64, const std::string& where);

    // The replacement for the SHORTEST prefix of `chunk` that has one, as spm_precompiled's
    // transform does (it takes the first common-prefix result whether or not it covers the
    // whole chunk); nullopt when no prefix has one. Stops at a '\0' byte, as the crate does.
    std::optional<std::string_view> transform(std::string_view chunk) const;

private:
    std::vector<std::uint32_t> m_array;
    std::string m_strings;
};

// Standard base64 with '=' padding, as Rust's BASE64_STANDARD decodes it; nullopt when malformed.
std::optional<std::string> decodeBase64(std::string_view text);

// The Precompiled normalizer on a text, as Hugging Face runs it: the text is cut into extended
// grapheme clusters; a cluster shorter than 6 bytes with a replacement is replaced whole,
// otherwise each of its characters is looked up alone. Spans follow HF's transformation rules
// (NormalizedString::transform): a replacement's characters take the spans of the characters
// they replace one for one, extra characters share the span of the last character consumed, and
// a shrinking replacement consumes the surplus with its last character (or, when it is empty,
// with the character before it).
NormalizedText precompiledNormalize(const NormalizedText& text, const PrecompiledCharsmap& map);

}  // namespace attnscope::tokenize
