#include "attnscope/tokenize/unicode.h"

#include <array>
#include <cstdint>

#include <utf8proc.h>

#include "attnscope/base/error.h"

namespace attnscope::tokenize {
namespace {

utf8proc_category_t category(char32_t cp) {
    return utf8proc_category(static_cast<utf8proc_int32_t>(cp));
}

std::string hexByte(unsigned char b) {
    static constexpr std::string_view kDigits = "0123456789abcdef";
    std::string out = "0x";
    out += kDigits[b >> 4];
    out += kDigits[b & 0xF];
    return out;
}

// Calls visit(byteOffset, cp) on each character of `text`; returns the byte offset of the first
// invalid sequence (visiting nothing from there), or nullopt when all of it is valid UTF-8.
template <class Visit>
std::optional<std::size_t> forEachUtf8(std::string_view text, Visit&& visit) {
    const auto* data = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
    const auto size = static_cast<utf8proc_ssize_t>(text.size());
    utf8proc_ssize_t pos = 0;
    while (pos < size) {
        utf8proc_int32_t cp = 0;
        // utf8proc_iterate rejects overlong forms, surrogates and truncated sequences.
        const utf8proc_ssize_t n = utf8proc_iterate(data + pos, size - pos, &cp);
        if (n <= 0 || cp < 0) {
            return static_cast<std::size_t>(pos);
        }
        visit(static_cast<std::size_t>(pos), static_cast<char32_t>(cp));
        pos += n;
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::size_t> findInvalidUtf8(std::string_view text) {
    return forEachUtf8(text, [](std::size_t, char32_t) {});
}

DecodedText decodeUtf8(std::string_view text, std::string_view context) {
    DecodedText out;
    out.chars.reserve(text.size());
    out.byteOffsets.reserve(text.size() + 1);
    const std::optional<std::size_t> invalid =
        forEachUtf8(text, [&out](std::size_t offset, char32_t cp) {
            out.byteOffsets.push_back(offset);
            out.chars.push_back(cp);
        });
    if (invalid) {
        throw InvalidArgument(std::string(context) + ": byte " + std::to_string(*invalid) +
                              ": invalid UTF-8 (sequence starting with " +
                              hexByte(static_cast<unsigned char>(text[*invalid])) +
                              "), expected UTF-8 text");
    }
    out.byteOffsets.push_back(text.size());
    return out;
}

void appendUtf8(std::string& out, char32_t cp) {
    std::array<utf8proc_uint8_t, 4> buf{};
    const utf8proc_ssize_t n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(cp), buf.data());
    out.append(reinterpret_cast<const char*>(buf.data()), static_cast<std::size_t>(n));
}

std::string toUtf8(std::u32string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char32_t cp : text) {
        appendUtf8(out, cp);
    }
    return out;
}

bool isWhiteSpace(char32_t cp) {
    if (cp < 0x80) {
        return cp == U' ' || (cp >= 0x09 && cp <= 0x0D);
    }
    return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
           cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

bool isBertControl(char32_t cp) {
    if (cp == U'\t' || cp == U'\n' || cp == U'\r') {
        return false;
    }
    switch (category(cp)) {
        case UTF8PROC_CATEGORY_CC:
        case UTF8PROC_CATEGORY_CF:
        case UTF8PROC_CATEGORY_CO:
        case UTF8PROC_CATEGORY_CS:
            return true;
        default:
            return false;
    }
}

bool isBertWhitespace(char32_t cp) {
    return cp == U'\t' || cp == U'\n' || cp == U'\r' || isWhiteSpace(cp);
}

bool isBertPunctuation(char32_t cp) {
    if (cp < 0x80) {
        return (cp >= 0x21 && cp <= 0x2F) || (cp >= 0x3A && cp <= 0x40) ||
               (cp >= 0x5B && cp <= 0x60) || (cp >= 0x7B && cp <= 0x7E);
    }
    switch (category(cp)) {
        case UTF8PROC_CATEGORY_PC:
        case UTF8PROC_CATEGORY_PD:
        case UTF8PROC_CATEGORY_PS:
        case UTF8PROC_CATEGORY_PE:
        case UTF8PROC_CATEGORY_PI:
        case UTF8PROC_CATEGORY_PF:
        case UTF8PROC_CATEGORY_PO:
            return true;
        default:
            return false;
    }
}

bool isChineseIdeograph(char32_t cp) {
    return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
           (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
           (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
           (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

bool isNonspacingMark(char32_t cp) {
    return category(cp) == UTF8PROC_CATEGORY_MN;
}

bool isRegexWordChar(char32_t cp) {
    if (cp < 0x80) {
        return (cp >= U'a' && cp <= U'z') || (cp >= U'A' && cp <= U'Z') ||
               (cp >= U'0' && cp <= U'9') || cp == U'_';
    }
    if (cp == 0x200C || cp == 0x200D || (cp >= 0x24B6 && cp <= 0x24E9) ||
        (cp >= 0x1F130 && cp <= 0x1F189)) {
        return true;
    }
    switch (category(cp)) {
        case UTF8PROC_CATEGORY_LU:
        case UTF8PROC_CATEGORY_LL:
        case UTF8PROC_CATEGORY_LT:
        case UTF8PROC_CATEGORY_LM:
        case UTF8PROC_CATEGORY_LO:
        case UTF8PROC_CATEGORY_NL:
        case UTF8PROC_CATEGORY_MN:
        case UTF8PROC_CATEGORY_MC:
        case UTF8PROC_CATEGORY_ME:
        case UTF8PROC_CATEGORY_ND:
        case UTF8PROC_CATEGORY_PC:
            return true;
        default:
            return false;
    }
}

void appendLowercase(char32_t cp, std::u32string& out) {
    if (cp == 0x130) {
        out += U'i';
        out += char32_t{0x307};
        return;
    }
    out += static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(cp)));
}

void appendCompatibilityDecomposition(char32_t cp, std::u32string& out) {
    std::array<utf8proc_int32_t, 32> buf{};  // the longest NFKD of one character is 18
    int boundclass = 0;
    const utf8proc_ssize_t n = utf8proc_decompose_char(
        static_cast<utf8proc_int32_t>(cp), buf.data(), static_cast<utf8proc_ssize_t>(buf.size()),
        static_cast<utf8proc_option_t>(UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT), &boundclass);
    if (n <= 0 || static_cast<std::size_t>(n) > buf.size()) {
        out += cp;
        return;
    }
    for (utf8proc_ssize_t i = 0; i < n; ++i) {
        out += static_cast<char32_t>(buf[static_cast<std::size_t>(i)]);
    }
}

void appendCanonicalDecomposition(char32_t cp, std::u32string& out) {
    // The longest canonical decomposition is 4 code points; 32 leaves ample room.
    std::array<utf8proc_int32_t, 32> buf{};
    int boundclass = 0;
    const utf8proc_ssize_t n = utf8proc_decompose_char(
        static_cast<utf8proc_int32_t>(cp), buf.data(), static_cast<utf8proc_ssize_t>(buf.size()),
        UTF8PROC_DECOMPOSE, &boundclass);
    if (n <= 0 || static_cast<std::size_t>(n) > buf.size()) {
        out += cp;
        return;
    }
    for (utf8proc_ssize_t i = 0; i < n; ++i) {
        out += static_cast<char32_t>(buf[static_cast<std::size_t>(i)]);
    }
}

int combiningClass(char32_t cp) {
    return utf8proc_get_property(static_cast<utf8proc_int32_t>(cp))->combining_class;
}

}  // namespace attnscope::tokenize
