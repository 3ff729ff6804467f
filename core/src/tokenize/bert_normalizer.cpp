#include "attnscope/tokenize/bert_normalizer.h"

#include <algorithm>

namespace attnscope::tokenize {
namespace {

NormalizedText cleanText(const NormalizedText& text) {
    NormalizedText out;
    out.reserve(text.size());
    for (NormalizedChar c : text) {
        if (c.cp == 0 || c.cp == 0xFFFD || isBertControl(c.cp)) {
            continue;
        }
        if (isBertWhitespace(c.cp)) {
            c.cp = U' ';
        }
        out.push_back(c);
    }
    return out;
}

NormalizedText spaceChineseChars(const NormalizedText& text) {
    NormalizedText out;
    out.reserve(text.size());
    for (const NormalizedChar& c : text) {
        if (isChineseIdeograph(c.cp)) {
            out.push_back({U' ', c.origBegin, c.origEnd});
            out.push_back(c);
            out.push_back({U' ', c.origBegin, c.origEnd});
        } else {
            out.push_back(c);
        }
    }
    return out;
}

NormalizedText dropNonspacingMarks(const NormalizedText& text) {
    NormalizedText out;
    out.reserve(text.size());
    for (const NormalizedChar& c : text) {
        if (!isNonspacingMark(c.cp)) {
            out.push_back(c);
        }
    }
    return out;
}

}  // namespace

NormalizedText nfd(const NormalizedText& text) {
    NormalizedText out = perCharacter(text, appendCanonicalDecomposition);
    // Canonical ordering: within each run of combining marks (class != 0), sort stably by
    // combining class. Each mark keeps the span of the character it came from.
    auto cls = [](const NormalizedChar& c) { return combiningClass(c.cp); };
    std::size_t i = 0;
    while (i < out.size()) {
        if (cls(out[i]) == 0) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < out.size() && cls(out[j]) != 0) {
            ++j;
        }
        if (j - i > 1) {
            std::stable_sort(
                out.begin() + static_cast<std::ptrdiff_t>(i),
                out.begin() + static_cast<std::ptrdiff_t>(j),
                [&](const NormalizedChar& a, const NormalizedChar& b) { return cls(a) < cls(b); });
        }
        i = j;
    }
    return out;
}

NormalizedText bertNormalize(const NormalizedText& text, const BertNormalizerOptions& options) {
    NormalizedText out = options.cleanText ? cleanText(text) : text;
    if (options.handleChineseChars) {
        out = spaceChineseChars(out);
    }
    // HF strips accents before lower-casing, so 'İ' becomes "I" and then "i" (no U+0307 left).
    if (options.stripAccents.value_or(options.lowercase)) {
        out = dropNonspacingMarks(nfd(out));
    }
    if (options.lowercase) {
        out = lowercaseText(out);
    }
    return out;
}

}  // namespace attnscope::tokenize
