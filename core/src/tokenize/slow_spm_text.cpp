#include "slow_spm_text.h"

#include <array>
#include <string>
#include <utility>

#include <utf8proc.h>

#include "attnscope/tokenize/unicode.h"

namespace attnscope::tokenize::detail {
namespace {

constexpr char32_t kSpace = U' ';

// Code points Python 3.11 calls digits although their category is not Nd (Numeric_Type=Digit).
constexpr std::array<std::pair<char32_t, char32_t>, 20> kDigitsOutsideNd = {{
    {0xB2, 0xB3},       {0xB9, 0xB9},       {0x1369, 0x1371},   {0x19DA, 0x19DA},
    {0x2070, 0x2070},   {0x2074, 0x2079},   {0x2080, 0x2089},   {0x2460, 0x2468},
    {0x2474, 0x247C},   {0x2488, 0x2490},   {0x24EA, 0x24EA},   {0x24F5, 0x24FD},
    {0x24FF, 0x24FF},   {0x2776, 0x277E},   {0x2780, 0x2788},   {0x278A, 0x2792},
    {0x10A40, 0x10A43}, {0x10E60, 0x10E68}, {0x11052, 0x1105A}, {0x1F100, 0x1F10A},
}};

// " ".join(text.strip().split()): each whitespace run between words becomes one ' '.
NormalizedText collapseSpaces(std::span<const NormalizedChar> text) {
    NormalizedText out;
    out.reserve(text.size());
    std::optional<NormalizedChar> pending;  // a run seen since the last word character
    for (const NormalizedChar& c : text) {
        if (isPythonSpace(c.cp)) {
            if (!pending) {
                pending = NormalizedChar{kSpace, c.origBegin, c.origEnd};
            }
            pending->origEnd = c.origEnd;
            continue;
        }
        if (pending && !out.empty()) {
            out.push_back(*pending);
        }
        pending.reset();
        out.push_back(c);
    }
    return out;
}

// text.replace(pair, '"'), left to right and non-overlapping, as str.replace does.
NormalizedText replacePair(const NormalizedText& text, char32_t quote) {
    NormalizedText out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i].cp == quote && i + 1 < text.size() && text[i + 1].cp == quote) {
            out.push_back({U'"', text[i].origBegin, text[i + 1].origEnd});
            ++i;
        } else {
            out.push_back(text[i]);
        }
    }
    return out;
}

std::size_t find(std::span<const NormalizedChar> line, char32_t a, std::size_t from) {
    for (std::size_t i = from; i + 1 < line.size(); ++i) {
        if (line[i].cp == a && line[i + 1].cp == a) {
            return i;
        }
    }
    return line.size();
}

std::size_t rfind(std::span<const NormalizedChar> line, char32_t a) {
    for (std::size_t i = line.size(); i >= 2; --i) {
        if (line[i - 2].cp == a && line[i - 1].cp == a) {
            return i - 2;
        }
    }
    return line.size();
}

}  // namespace

bool isPythonSpace(char32_t cp) {
    return isWhiteSpace(cp) || (cp >= 0x1C && cp <= 0x1F);
}

bool isPythonDigit(char32_t cp) {
    if (utf8proc_category(static_cast<utf8proc_int32_t>(cp)) == UTF8PROC_CATEGORY_ND) {
        return true;
    }
    for (const auto& [first, last] : kDigitsOutsideNd) {
        if (cp >= first && cp <= last) {
            return true;
        }
    }
    return false;
}

NormalizedText albertPreprocess(std::span<const NormalizedChar> text,
                                const AlbertTextOptions& options) {
    NormalizedText out =
        options.removeSpace ? collapseSpaces(text) : NormalizedText(text.begin(), text.end());
    out = replacePair(replacePair(out, U'`'), U'\'');
    if (!options.keepAccents) {
        out = perCharacter(out, [](char32_t cp, std::u32string& parts) {
            std::u32string decomposed;
            appendCompatibilityDecomposition(cp, decomposed);
            for (char32_t p : decomposed) {
                if (combiningClass(p) == 0) {
                    parts += p;
                }
            }
        });
    }
    if (options.lowercase) {
        out = perCharacter(out, appendLowercase);
    }
    return out;
}

LanguageCodeSplit removeLanguageCode(std::span<const NormalizedChar> text) {
    LanguageCodeSplit out;
    out.rest.reserve(text.size());
    std::size_t lineStart = 0;
    while (lineStart <= text.size()) {
        std::size_t lineEnd = lineStart;
        while (lineEnd < text.size() && text[lineEnd].cp != U'\n') {
            ++lineEnd;
        }
        const auto line = text.subspan(lineStart, lineEnd - lineStart);
        const std::size_t open = find(line, U'>', 0);
        const std::size_t close = rfind(line, U'<');
        // ".+" needs one character between the marks; greedy, it ends at the line's last "<<".
        const bool match = open < line.size() && close < line.size() && close >= open + 3;
        const std::size_t cutBegin = match ? open : line.size();
        const std::size_t cutEnd = match ? close + 2 : line.size();
        if (match && lineStart == 0 && open == 0) {
            out.code = NormalizedText(line.begin(), line.begin() + static_cast<long>(cutEnd));
        }
        out.rest.insert(out.rest.end(), line.begin(), line.begin() + static_cast<long>(cutBegin));
        out.rest.insert(out.rest.end(), line.begin() + static_cast<long>(cutEnd), line.end());
        if (lineEnd < text.size()) {
            out.rest.push_back(text[lineEnd]);  // the '\n'
        }
        lineStart = lineEnd + 1;
    }
    return out;
}

}  // namespace attnscope::tokenize::detail
