#include "attnscope/tokenize/normalizer.h"

#include <array>
#include <cstdlib>
#include <memory>
#include <unordered_set>

#include <utf8proc.h>

#include "attnscope/base/error.h"
#include "attnscope/tokenize/pre_tokenizer.h"
#include "attnscope/tokenize/precompiled_charsmap.h"

namespace attnscope::tokenize {
namespace {

bool isHangulVowelOrTrail(char32_t cp) {
    return (cp >= 0x1161 && cp <= 0x1175) || (cp >= 0x11A8 && cp <= 0x11C2);
}

// Starters (combining class 0) that appear after the first position of some character's
// canonical decomposition, so NFC may compose them with what precedes them (U+0B3E, U+0CD5,
// U+102E ...). utf8proc has no NFC_Quick_Check property, so the set is derived once from its
// decompositions; Hangul vowels and trailing consonants compose algorithmically.
const std::unordered_set<char32_t>& composingStarters() {
    static const std::unordered_set<char32_t> kSet = [] {
        std::unordered_set<char32_t> set;
        std::u32string parts;
        for (char32_t cp = 0xC0; cp < 0x110000; ++cp) {
            if ((cp >= 0xD800 && cp <= 0xDFFF) || (cp >= 0xAC00 && cp <= 0xD7A3)) {
                continue;
            }
            parts.clear();
            appendCanonicalDecomposition(cp, parts);
            for (std::size_t i = 1; i < parts.size(); ++i) {
                if (combiningClass(parts[i]) == 0) {
                    set.insert(parts[i]);
                }
            }
        }
        return set;
    }();
    return kSet;
}

// True when NFC cannot change anything across a cut made before `cp`.
bool startsNfcPiece(char32_t cp) {
    if (cp < 0x300) {
        return true;  // Latin-1 and the Latin extensions: stable starters
    }
    if (combiningClass(cp) != 0 || isHangulVowelOrTrail(cp)) {
        return false;
    }
    std::u32string parts;
    appendCanonicalDecomposition(cp, parts);
    if (parts.empty() || combiningClass(parts.front()) != 0) {
        return false;  // U+0F73 and friends decompose to combining marks
    }
    return !composingStarters().contains(cp) && !composingStarters().contains(parts.front());
}

std::u32string nfcOf(std::span<const NormalizedChar> piece) {
    const std::string utf8 = toUtf8(piece);
    using Freed = std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)>;
    const Freed composed(utf8proc_NFC(reinterpret_cast<const utf8proc_uint8_t*>(utf8.c_str())),
                         &std::free);
    if (composed == nullptr) {
        throw Error("NFC normalizer: utf8proc failed on a valid UTF-8 text");
    }
    return decodeUtf8(reinterpret_cast<const char*>(composed.get()), "NFC output").chars;
}

void appendNfcPiece(std::span<const NormalizedChar> piece, NormalizedText& out) {
    if (piece.size() == 1 && piece.front().cp < 0x300) {
        out.push_back(piece.front());
        return;
    }
    const std::u32string composed = nfcOf(piece);
    const std::size_t n = piece.size();
    const std::size_t m = composed.size();
    for (std::size_t t = 0; t < m; ++t) {
        std::size_t from = 0;
        if (m <= n) {
            from = t == 0 ? 0 : t + (n - m);
        } else {
            from = std::min(t, n - 1);
        }
        out.push_back({composed[t], piece[from].origBegin, piece[from].origEnd});
    }
}

// HF's StripAccents keeps what unicode-normalization's is_combining_mark rejects: Mn, Mc, Me.
NormalizedText stripAccents(const NormalizedText& text) {
    NormalizedText out;
    out.reserve(text.size());
    for (const NormalizedChar& c : text) {
        const auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(c.cp));
        if (cat != UTF8PROC_CATEGORY_MN && cat != UTF8PROC_CATEGORY_MC &&
            cat != UTF8PROC_CATEGORY_ME) {
            out.push_back(c);
        }
    }
    return out;
}

// HF's Strip: kept characters keep their spans.
NormalizedText stripText(const NormalizedText& text, bool left, bool right) {
    std::size_t begin = 0;
    std::size_t end = text.size();
    while (left && begin < end && isWhiteSpace(text[begin].cp)) {
        ++begin;
    }
    while (right && end > begin && isWhiteSpace(text[end - 1].cp)) {
        --end;
    }
    return NormalizedText(text.begin() + static_cast<std::ptrdiff_t>(begin),
                          text.begin() + static_cast<std::ptrdiff_t>(end));
}

NormalizedText applyStep(const NormalizedText& text, const NormalizerStep& step) {
    switch (step.kind) {
        case NormalizerKind::Bert:
            return bertNormalize(text, step.bert);
        case NormalizerKind::Prepend: {
            NormalizedText out = text;
            prependText(out, step.text);
            return out;
        }
        case NormalizerKind::Replace:
            return step.regex ? replaceRegex(text, *step.regex, step.content)
                              : replaceText(text, step.text, step.content);
        case NormalizerKind::Nfc:
            return nfc(text);
        case NormalizerKind::Nfd:
            return nfd(text);
        case NormalizerKind::Nfkd:
            return nfkd(text);
        case NormalizerKind::Lowercase:
            return lowercaseText(text);
        case NormalizerKind::StripAccents:
            return stripAccents(text);
        case NormalizerKind::Strip:
            return stripText(text, step.stripLeft, step.stripRight);
        case NormalizerKind::Precompiled:
            return precompiledNormalize(text, *step.charsmap);
    }
    return text;
}

}  // namespace

NormalizedText nfkd(const NormalizedText& text) {
    // Already decomposed: nfd only reorders the marks.
    return nfd(perCharacter(text, appendCompatibilityDecomposition));
}

NormalizedText transformText(const NormalizedText& text, std::span<const CharChange> changes,
                             std::size_t initialOffset) {
    NormalizedText out;
    out.reserve(changes.size());
    std::size_t next = initialOffset;  // the next original character to consume
    auto spanOf = [&](std::size_t i) {
        // HF would index out of bounds here for a list consuming more than the text holds;
        // the last character's span is the safe stand-in.
        const NormalizedChar& c = text[std::min(i, text.size() - 1)];
        return std::pair{c.origBegin, c.origEnd};
    };
    for (const CharChange& ch : changes) {
        std::pair<std::size_t, std::size_t> span{0, 0};
        if (text.empty()) {
            span = {0, 0};
        } else if (ch.change > 0) {
            span = next == 0 ? std::pair{text.front().origBegin, text.front().origBegin}
                             : spanOf(next - 1);
        } else {
            span = spanOf(next);
            next += 1 + static_cast<std::size_t>(-ch.change);
        }
        out.push_back({ch.cp, span.first, span.second});
    }
    return out;
}

NormalizedText replaceRegex(const NormalizedText& text, const RegexSplitter& pattern,
                            std::u32string_view content) {
    if (text.empty()) {
        return text;
    }
    NormalizedText out;
    out.reserve(text.size());
    for (const MatchPiece& piece : pattern.find(text)) {
        const CharRange r = piece.range;
        if (!piece.isMatch) {
            out.insert(out.end(), text.begin() + static_cast<std::ptrdiff_t>(r.begin),
                       text.begin() + static_cast<std::ptrdiff_t>(r.end));
            continue;
        }
        // Inserted text takes the span of the match's last character; HF gives an empty match
        // at the very start the empty span there.
        const NormalizedChar at =
            r.end > 0 ? text[r.end - 1] : NormalizedChar{0, text[0].origBegin, text[0].origBegin};
        for (char32_t cp : content) {
            out.push_back({cp, at.origBegin, at.origEnd});
        }
    }
    return out;
}

void prependText(NormalizedText& text, std::u32string_view prefix) {
    if (text.empty()) {
        return;
    }
    NormalizedText added;
    added.reserve(prefix.size());
    for (char32_t cp : prefix) {
        added.push_back({cp, text.front().origBegin, text.front().origEnd});
    }
    text.insert(text.begin(), added.begin(), added.end());
}

NormalizedText replaceText(const NormalizedText& text, std::u32string_view pattern,
                           std::u32string_view content) {
    NormalizedText out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        bool match = !pattern.empty() && text.size() - i >= pattern.size();
        for (std::size_t k = 0; match && k < pattern.size(); ++k) {
            match = text[i + k].cp == pattern[k];
        }
        if (!match) {
            out.push_back(text[i++]);
            continue;
        }
        const NormalizedChar& last = text[i + pattern.size() - 1];
        for (char32_t cp : content) {
            out.push_back({cp, last.origBegin, last.origEnd});
        }
        i += pattern.size();
    }
    return out;
}

NormalizedText nfc(const NormalizedText& text) {
    NormalizedText out;
    out.reserve(text.size());
    std::size_t begin = 0;
    for (std::size_t i = 1; i <= text.size(); ++i) {
        if (i == text.size() || startsNfcPiece(text[i].cp)) {
            appendNfcPiece(std::span(text).subspan(begin, i - begin), out);
            begin = i;
        }
    }
    return out;
}

NormalizedText normalize(const NormalizedText& text, const std::vector<NormalizerStep>& steps) {
    NormalizedText out = text;
    for (const NormalizerStep& step : steps) {
        out = applyStep(out, step);
    }
    return out;
}

}  // namespace attnscope::tokenize
