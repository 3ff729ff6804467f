#include "attnscope/tokenize/normalized_text.h"

namespace attnscope::tokenize {

NormalizedText makeNormalizedText(const DecodedText& text, std::size_t charBegin,
                                  std::size_t charEnd) {
    NormalizedText out;
    out.reserve(charEnd - charBegin);
    for (std::size_t i = charBegin; i < charEnd; ++i) {
        out.push_back({text.chars[i], text.byteOffsets[i], text.byteOffsets[i + 1]});
    }
    return out;
}

NormalizedText makeDetachedText(std::u32string_view chars) {
    NormalizedText out;
    out.reserve(chars.size());
    for (char32_t cp : chars) {
        out.push_back({cp, 0, 0});
    }
    return out;
}

std::u32string codePoints(std::span<const NormalizedChar> text) {
    std::u32string out;
    out.reserve(text.size());
    for (const NormalizedChar& c : text) {
        out += c.cp;
    }
    return out;
}

std::string toUtf8(std::span<const NormalizedChar> text) {
    std::string out;
    out.reserve(text.size());
    for (const NormalizedChar& c : text) {
        appendUtf8(out, c.cp);
    }
    return out;
}

void prependChar(NormalizedText& text, char32_t cp) {
    if (text.empty()) {
        return;  // as in HF: nothing to attach the new character to
    }
    NormalizedChar first = text.front();
    first.cp = cp;
    text.insert(text.begin(), first);
}

}  // namespace attnscope::tokenize
