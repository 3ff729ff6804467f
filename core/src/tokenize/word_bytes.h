// A word's characters as UTF-8 bytes, with the character each byte came from, for the models
// that work on bytes (BPE merges, Unigram's Viterbi): their pieces map back to characters, and
// so to spans of the user's text. Private to attnscope_tokenize.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "attnscope/tokenize/normalized_text.h"
#include "attnscope/tokenize/unicode.h"

namespace attnscope::tokenize::detail {

struct WordBytes {
    std::string bytes;
    std::vector<std::size_t> byteToChar;  // [bytes.size()]: the index in the word of each byte
};

inline WordBytes wordBytes(std::span<const NormalizedChar> word) {
    WordBytes out;
    for (std::size_t i = 0; i < word.size(); ++i) {
        const std::size_t before = out.bytes.size();
        appendUtf8(out.bytes, word[i].cp);
        out.byteToChar.insert(out.byteToChar.end(), out.bytes.size() - before, i);
    }
    return out;
}

}  // namespace attnscope::tokenize::detail
