#include "attnscope/tokenize/bert_normalizer.h"

#include <algorithm>

namespace attnscope::tokenize {
namespace {

// The steps below are perCharacter transforms: a dropped character appends nothing, and the
// spaces put around an ideograph share its span.
void appendCleaned(char32_t cp, std::u32string& parts) {
    if (cp == 0 || cp == 0xFFFD || isBertControl(cp)) {
        return;
    }
    parts.push_back(isBertWhitespace(cp) ? U' ' : cp);
}

void appendSpacedIdeograph(char32_t cp, std::u32string& parts) {
    if (isChineseIdeograph(cp)) {
        parts.append({U' ', cp, U' '});
    } else {
        parts.push_back(cp);
    }
}

void appendUnlessNonspacingMark(char32_t cp, std::u32string& parts) {
    if (!isNonspacingMark(cp)) {
        parts.push_back(cp);
    }
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
    NormalizedText out = options.cleanText ? perCharacter(text, appendCleaned) : text;
    if (options.handleChineseChars) {
        out = perCharacter(out, appendSpacedIdeograph);
    }
    // HF strips accents before lower-casing, so 'İ' becomes "I" and then "i" (no U+0307 left).
    if (options.stripAccents.value_or(options.lowercase)) {
        out = perCharacter(nfd(out), appendUnlessNonspacingMark);
    }
    if (options.lowercase) {
        out = lowercaseText(out);
    }
    return out;
}

}  // namespace attnscope::tokenize
