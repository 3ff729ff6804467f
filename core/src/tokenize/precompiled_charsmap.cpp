#include "attnscope/tokenize/precompiled_charsmap.h"

#include <array>

#include <utf8proc.h>

#include "attnscope/base/error.h"
#include "attnscope/tokenize/normalizer.h"

namespace attnscope::tokenize {
namespace {

// darts-clone's unit layout (spm_precompiled reads it the same way).
bool hasLeaf(std::uint32_t unit) {
    return ((unit >> 8) & 1U) == 1U;
}

std::uint32_t valueOf(std::uint32_t unit) {
    return unit & ((1U << 31) - 1U);
}

std::uint32_t labelOf(std::uint32_t unit) {
    return unit & ((1U << 31) | 0xFFU);
}

std::size_t offsetOf(std::uint32_t unit) {
    return static_cast<std::size_t>(unit >> 10) << ((unit & (1U << 9)) >> 6);
}

std::uint32_t readU32(std::string_view bytes, std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 4; ++k) {
        v |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + k])) << (8 * k);
    }
    return v;
}

[[noreturn]] void fail(const std::string& where, const std::string& reason) {
    throw FormatError(where + ": " + reason);
}

// Walks every node a lookup can reach. A lookup at node p reads unit p ^ c for any byte c, so
// p's whole 256-unit block must be inside the array; a leaf's value must start a replacement,
// and that replacement must end with a NUL before the strings do: sentencepiece writes one after
// each, and without it a lookup would return every byte up to the end of the blob (issue 30).
void checkTrie(const std::vector<std::uint32_t>& array, std::string_view strings,
               const std::string& where) {
    // A replacement starting at v is terminated iff some NUL lies at or after v.
    const std::size_t lastNul = strings.rfind('\0');
    const std::size_t n = array.size();
    std::vector<bool> seen(n, false);
    std::vector<std::size_t> stack{offsetOf(array[0])};
    while (!stack.empty()) {
        const std::size_t pos = stack.back();
        stack.pop_back();
        if ((pos | 0xFFU) >= n) {
            fail(where, "trie node " + std::to_string(pos) + " lies outside the " +
                            std::to_string(n) + "-unit array");
        }
        if (seen[pos]) {
            continue;
        }
        seen[pos] = true;
        for (std::size_t c = 1; c < 256; ++c) {
            const std::uint32_t unit = array[pos ^ c];
            if (labelOf(unit) != c) {
                continue;
            }
            const std::size_t child = (pos ^ c) ^ offsetOf(unit);
            if (hasLeaf(unit)) {
                const std::size_t value = child < n ? valueOf(array[child]) : strings.size() + 1;
                if (value > strings.size() ||
                    (value < strings.size() &&
                     (static_cast<unsigned char>(strings[value]) & 0xC0U) == 0x80U)) {
                    fail(where,
                         "a replacement offset points outside the replacement strings "
                         "or into a character");
                }
                if (lastNul == std::string_view::npos || value > lastNul) {
                    fail(where, "the replacement string at byte " + std::to_string(value) +
                                    " has no terminating NUL (the " +
                                    std::to_string(strings.size()) +
                                    " bytes of replacement strings end without one)");
                }
            }
            stack.push_back(child);
        }
    }
}

int base64Value(char c) {
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }
    return c == '+' ? 62 : (c == '/' ? 63 : -1);
}

}  // namespace

std::optional<std::string> decodeBase64(std::string_view text) {
    if (text.size() % 4 != 0) {
        return std::nullopt;
    }
    std::string out;
    out.reserve(text.size() / 4 * 3);
    for (std::size_t i = 0; i < text.size(); i += 4) {
        const bool last = i + 4 == text.size();
        std::size_t pad = 0;
        while (last && pad < 2 && text[i + 3 - pad] == '=') {
            ++pad;
        }
        std::uint32_t bits = 0;
        for (std::size_t k = 0; k < 4 - pad; ++k) {
            const int v = base64Value(text[i + k]);
            if (v < 0) {
                return std::nullopt;
            }
            bits |= static_cast<std::uint32_t>(v) << (18 - 6 * k);
        }
        // The bits padding drops must be zero (Rust's decoder rejects anything else).
        if ((pad == 1 && (bits & 0xFFU) != 0) || (pad == 2 && (bits & 0xFFFFU) != 0)) {
            return std::nullopt;
        }
        for (std::size_t k = 0; k < 3 - pad; ++k) {
            out += static_cast<char>((bits >> (16 - 8 * k)) & 0xFFU);
        }
    }
    return out;
}

PrecompiledCharsmap::PrecompiledCharsmap(std::string_view blob, const std::string& where) {
    if (blob.size() < 4) {
        fail(where, "the charsmap is " + std::to_string(blob.size()) +
                        " bytes, too short for its trie size");
    }
    // As spm_precompiled reads it: size / 4 units, and whatever follows them is the strings
    // (a size that is not a multiple of 4 leaves its last bytes to the strings).
    const std::size_t units = readU32(blob, 0) / 4;
    if (units > (blob.size() - 4) / 4) {
        fail(where, "the trie claims " + std::to_string(units) + " units but only " +
                        std::to_string((blob.size() - 4) / 4) + " follow");
    }
    if (units == 0) {
        fail(where, "the trie is empty");
    }
    m_array.reserve(units);
    for (std::size_t i = 0; i < units; ++i) {
        m_array.push_back(readU32(blob, 4 + 4 * i));
    }
    m_strings = std::string(blob.substr(4 + 4 * units));
    if (const auto bad = findInvalidUtf8(m_strings)) {
        fail(where,
             "the replacement strings are not valid UTF-8 (byte " + std::to_string(*bad) + ")");
    }
    checkTrie(m_array, m_strings, where);
}

PrecompiledCharsmap PrecompiledCharsmap::fromBase64(std::string_view base64,
                                                    const std::string& where) {
    const std::optional<std::string> blob = decodeBase64(base64);
    if (!blob) {
        fail(where, "not valid base64");
    }
    return PrecompiledCharsmap(*blob, where);
}

std::optional<std::string_view> PrecompiledCharsmap::transform(std::string_view chunk) const {
    // The bounds checks below cannot fail after checkTrie; they keep a lookup safe regardless.
    const std::size_t n = m_array.size();
    std::size_t pos = offsetOf(m_array[0]);
    for (char ch : chunk) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == 0) {
            break;
        }
        pos ^= c;
        if (pos >= n || labelOf(m_array[pos]) != c) {
            return std::nullopt;
        }
        const std::uint32_t unit = m_array[pos];
        pos ^= offsetOf(unit);
        if (hasLeaf(unit)) {
            if (pos >= n || valueOf(m_array[pos]) > m_strings.size()) {
                return std::nullopt;
            }
            const std::string_view rest = std::string_view(m_strings).substr(valueOf(m_array[pos]));
            return rest.substr(0, rest.find('\0'));
        }
    }
    return std::nullopt;
}

namespace {

// spm_precompiled's `replace`: the new characters replace the old one for one; extra ones are
// marked as insertions; a shortfall is removed by the last entry written so far.
void pushReplacement(std::vector<CharChange>& changes, std::size_t oldCount,
                     std::string_view replacement) {
    const std::u32string chars = decodeUtf8(replacement, "charsmap replacement").chars;
    for (char32_t cp : chars) {
        changes.push_back({cp, 0});
    }
    const auto diff =
        static_cast<std::ptrdiff_t>(chars.size()) - static_cast<std::ptrdiff_t>(oldCount);
    if (diff > 0) {
        for (std::size_t k = 0; k < static_cast<std::size_t>(diff); ++k) {
            changes[changes.size() - 1 - k].change = 1;
        }
    } else if (diff < 0 && !changes.empty()) {
        changes.back().change += diff;
    }
}

}  // namespace

NormalizedText precompiledNormalize(const NormalizedText& text, const PrecompiledCharsmap& map) {
    std::string bytes;
    std::vector<std::size_t> start;  // byte offset of each character, plus the end
    start.reserve(text.size() + 1);
    for (const NormalizedChar& c : text) {
        start.push_back(bytes.size());
        appendUtf8(bytes, c.cp);
    }
    start.push_back(bytes.size());
    std::vector<CharChange> changes;
    changes.reserve(text.size());
    bool modified = false;
    auto perChar = [&](std::size_t from, std::size_t to) {
        for (std::size_t k = from; k < to; ++k) {
            const auto norm =
                map.transform(std::string_view(bytes).substr(start[k], start[k + 1] - start[k]));
            if (norm) {
                modified = true;
                pushReplacement(changes, 1, *norm);
            } else {
                changes.push_back({text[k].cp, 0});
            }
        }
    };
    utf8proc_int32_t state = 0;
    std::size_t cluster = 0;
    for (std::size_t i = 1; i <= text.size(); ++i) {
        if (i < text.size() &&
            !utf8proc_grapheme_break_stateful(static_cast<utf8proc_int32_t>(text[i - 1].cp),
                                              static_cast<utf8proc_int32_t>(text[i].cp), &state)) {
            continue;
        }
        const std::size_t size = start[i] - start[cluster];
        const auto norm = size < 6
                              ? map.transform(std::string_view(bytes).substr(start[cluster], size))
                              : std::nullopt;
        if (norm) {
            modified = true;
            pushReplacement(changes, i - cluster, *norm);
        } else {
            perChar(cluster, i);
        }
        cluster = i;
    }
    if (!modified) {
        return text;
    }
    return transformText(text, changes, 0);
}

}  // namespace attnscope::tokenize
