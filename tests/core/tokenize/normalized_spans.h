// Helpers of the normalizer tests (normalizer_test.cpp, precompiled_test.cpp): a text to
// normalize and the spans each normalized character keeps, in a compact form to compare.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "attnscope/tokenize/normalizer.h"

namespace attnscope::tokenize {

inline NormalizedText textOf(std::string_view utf8) {
    const DecodedText d = decodeUtf8(utf8, "test");
    return makeNormalizedText(d, 0, d.chars.size());
}

// "char:begin-end" for each character, spans in bytes of the original.
inline std::vector<std::string> spans(const NormalizedText& t) {
    std::vector<std::string> out;
    for (const NormalizedChar& c : t) {
        std::string s;
        appendUtf8(s, c.cp);
        out.push_back(s + ":" + std::to_string(c.origBegin) + "-" + std::to_string(c.origEnd));
    }
    return out;
}

}  // namespace attnscope::tokenize
