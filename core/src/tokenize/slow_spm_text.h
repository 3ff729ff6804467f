// The text handling of transformers' slow (Python) SentencePiece tokenizers, as
// slow_spm_tokenizer.cpp runs it: Python's str methods (isspace, isdigit, per-character lower),
// AlbertTokenizer.preprocess_text and MarianTokenizer's language codes. Every step keeps each
// character's original span (normalized_text.h), so tokens still point into the user's text.
// Private to attnscope_tokenize; pure functions, no errors.
#pragma once

#include <optional>
#include <span>

#include "attnscope/tokenize/normalized_text.h"

namespace attnscope::tokenize::detail {

// Python's str.isspace: the White_Space property plus U+001C..U+001F.
bool isPythonSpace(char32_t cp);

// Python's str.isdigit: category Nd plus the Numeric_Type=Digit characters outside it
// (superscripts, circled digits, ...), listed as Python 3.11 (Unicode 14) has them.
bool isPythonDigit(char32_t cp);

struct AlbertTextOptions {
    bool removeSpace = true;   // remove_space
    bool keepAccents = false;  // keep_accents
    bool lowercase = true;     // do_lower_case
};

// AlbertTokenizer.preprocess_text: strip and collapse whitespace runs to one ' ' (remove_space),
// "``" and "''" to '"', NFKD with combining marks dropped (unless keep_accents), lower-case.
// A collapsed run and a replaced pair take the span of all the characters they replace.
NormalizedText albertPreprocess(std::span<const NormalizedChar> text,
                                const AlbertTextOptions& options);

// MarianTokenizer.remove_language_code (transformers 4.x): language_code_re = ">>.+<<" is matched
// at the start (the code, kept whole as one token) and removed wherever it occurs; '.' stops at
// '\n', and the match is greedy, so on each line it runs from the first ">>" to the last "<<".
struct LanguageCodeSplit {
    std::optional<NormalizedText> code;
    NormalizedText rest;
};

LanguageCodeSplit removeLanguageCode(std::span<const NormalizedChar> text);

}  // namespace attnscope::tokenize::detail
