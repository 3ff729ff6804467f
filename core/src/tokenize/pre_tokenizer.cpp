#include "attnscope/tokenize/pre_tokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <algorithm>
#include <array>
#include <optional>

#include <pcre2.h>

#include "attnscope/base/error.h"
#include "attnscope/tokenize/normalizer.h"

namespace attnscope::tokenize {
namespace {

// GPT-2's pre-tokenization regex, as HF compiles it with Oniguruma:
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// Oniguruma's \s is the White_Space property, while PCRE2's \s (with PCRE2_UCP) also matches
// U+180E. So \s is spelled out as the White_Space class, and (?!\S) as (?![^\s]).
constexpr const char* kWs =
    "\\t\\n\\x{0B}\\f\\r \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}"
    "\\x{202F}\\x{205F}\\x{3000}";

std::string gpt2Pattern() {
    const std::string ws = kWs;
    return "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^" + ws + "\\p{L}\\p{N}]+|[" + ws +
           "]+(?![^" + ws + "])|[" + ws + "]+";
}

// GPT-2's bytes_to_unicode(): printable Latin-1 bytes stand for themselves; the other 68 bytes
// (controls, space, DEL, NBSP, soft hyphen...) map to U+0100 upwards, in byte order. No library
// provides this table: it is part of the GPT-2 vocabulary format itself.
std::array<char32_t, 256> makeByteTable() {
    std::array<char32_t, 256> table{};
    char32_t next = 256;
    for (unsigned b = 0; b < 256; ++b) {
        const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
        table[b] = printable ? static_cast<char32_t>(b) : next++;
    }
    return table;
}

}  // namespace

std::vector<CharRange> bertPreTokenize(std::span<const NormalizedChar> text) {
    std::vector<CharRange> words;
    std::size_t wordBegin = 0;
    bool inWord = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char32_t cp = text[i].cp;
        const bool space = isWhiteSpace(cp);
        const bool punct = !space && isBertPunctuation(cp);
        if (space || punct) {
            if (inWord) {
                words.push_back({wordBegin, i});
                inWord = false;
            }
            if (punct) {
                words.push_back({i, i + 1});
            }
        } else if (!inWord) {
            wordBegin = i;
            inWord = true;
        }
    }
    if (inWord) {
        words.push_back({wordBegin, text.size()});
    }
    return words;
}

struct RegexSplitter::Impl {
    pcre2_code* code = nullptr;
    std::string where;
};

namespace {

// Oniguruma's \s is the White_Space property; PCRE2 spells that \p{White_Space}, inside a class
// as well as outside. Escapes are copied pairwise so "\\s" stays a backslash and an 's'.
std::string toPcre2(std::string_view pattern) {
    std::string out;
    out.reserve(pattern.size() + 32);
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] != '\\' || i + 1 == pattern.size()) {
            out += pattern[i];
            continue;
        }
        const char next = pattern[++i];
        if (next == 's') {
            out += "\\p{White_Space}";
        } else if (next == 'S') {
            out += "\\P{White_Space}";
        } else {
            out += '\\';
            out += next;
        }
    }
    return out;
}

pcre2_code* compilePattern(const std::string& pattern, std::uint32_t options,
                           const std::string& where) {
    int errorCode = 0;
    PCRE2_SIZE errorOffset = 0;
    // PCRE2 refuses UCP with LITERAL (it has no classes to apply it to).
    const std::uint32_t unicode =
        (options & PCRE2_LITERAL) != 0 ? PCRE2_UTF : PCRE2_UTF | PCRE2_UCP;
    pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.c_str()), pattern.size(),
                                     options | unicode, &errorCode, &errorOffset, nullptr);
    if (code == nullptr) {
        std::array<PCRE2_UCHAR, 256> message{};
        pcre2_get_error_message(errorCode, message.data(), message.size());
        throw UnsupportedModel(
            where + ": pattern offset " + std::to_string(errorOffset) +
            ": PCRE2 rejected the regex: " + reinterpret_cast<const char*>(message.data()));
    }
    pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // falls back to the interpreter on failure
    return code;
}

// A failed match is about the user's text, not a bug: say where and what to do about it.
std::string matchFailure(const std::string& where, int rc, std::size_t atChar) {
    std::array<PCRE2_UCHAR, 256> buffer{};
    const int n = pcre2_get_error_message(rc, buffer.data(), buffer.size());
    const std::string reason = n > 0 ? std::string(reinterpret_cast<const char*>(buffer.data()),
                                                   static_cast<std::size_t>(n))
                                     : "error " + std::to_string(rc);
    const bool tooHard = rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
                         rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_NOMEMORY;
    return where + ": character " + std::to_string(atChar) +
           " of the text: the tokenizer's split pattern could not be matched (" + reason + ")" +
           (tooHard ? "; the text there is too long or repetitive for this pattern: shorten it "
                      "or break it up"
                    : "");
}

}  // namespace

RegexSplitter::RegexSplitter() : m_impl(std::make_unique<Impl>()) {
    m_impl->where = "byte-level pre-tokenizer";
    m_impl->code = compilePattern(gpt2Pattern(), 0, m_impl->where);
}

RegexSplitter::RegexSplitter(std::string_view pattern, bool literal, const std::string& where)
    : m_impl(std::make_unique<Impl>()) {
    m_impl->where = where;
    m_impl->code = literal ? compilePattern(std::string(pattern), PCRE2_LITERAL, where)
                           : compilePattern(toPcre2(pattern), 0, where);
}

RegexSplitter::~RegexSplitter() {
    pcre2_code_free(m_impl->code);
}

std::vector<MatchPiece> RegexSplitter::find(std::span<const NormalizedChar> text) const {
    std::string subject;
    subject.reserve(text.size());
    std::vector<std::size_t> byteToChar;
    byteToChar.reserve(text.size() + 1);
    for (std::size_t i = 0; i < text.size(); ++i) {
        const std::size_t before = subject.size();
        appendUtf8(subject, text[i].cp);
        byteToChar.insert(byteToChar.end(), subject.size() - before, i);
    }
    byteToChar.push_back(text.size());

    using MatchData = std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)>;
    MatchData match(pcre2_match_data_create_from_pattern(m_impl->code, nullptr),
                    &pcre2_match_data_free);
    std::vector<MatchPiece> pieces;
    if (subject.empty()) {
        return pieces;  // HF finds nothing in an empty text, not even an empty match
    }
    std::size_t consumed = 0;  // bytes already assigned to a piece
    std::size_t start = 0;
    auto nextChar = [&](std::size_t at) {
        ++at;
        while (at < subject.size() && (subject[at] & 0xC0) == 0x80) {
            ++at;
        }
        return at;
    };
    // Oniguruma's find_iter, as HF runs it: an empty match right where the previous match
    // ended is skipped, and one at the very end of the text counts.
    std::optional<std::size_t> lastEnd;
    while (start <= subject.size()) {
        const auto* data = reinterpret_cast<PCRE2_SPTR>(subject.data());
        int rc = pcre2_match(m_impl->code, data, subject.size(), start, PCRE2_NO_UTF_CHECK,
                             match.get(), nullptr);
        if (rc == PCRE2_ERROR_JIT_STACKLIMIT) {
            // Very long runs of whitespace can exhaust the JIT's stack: use the interpreter.
            rc = pcre2_match(m_impl->code, data, subject.size(), start,
                             PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, match.get(), nullptr);
        }
        if (rc == PCRE2_ERROR_NOMATCH) {
            break;
        }
        if (rc < 0) {
            throw InvalidArgument(matchFailure(m_impl->where, rc, byteToChar[start]));
        }
        const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(match.get());
        const std::size_t mBegin = ov[0];
        const std::size_t mEnd = ov[1];
        if (mEnd == mBegin && lastEnd == mEnd) {
            start = nextChar(mEnd);
            continue;
        }
        // An empty match still cuts the gap (a Split keeps it as an empty piece, dropped
        // later; a Replace inserts its content there); the search then moves one character on.
        if (mBegin > consumed) {
            pieces.push_back({{byteToChar[consumed], byteToChar[mBegin]}, false});
        }
        pieces.push_back({{byteToChar[mBegin], byteToChar[mEnd]}, true});
        consumed = mEnd;
        lastEnd = mEnd;
        start = mEnd > mBegin ? mEnd : nextChar(mEnd);
    }
    if (consumed < subject.size()) {
        pieces.push_back({{byteToChar[consumed], text.size()}, false});
    }
    return pieces;
}

std::vector<CharRange> RegexSplitter::split(std::span<const NormalizedChar> text) const {
    std::vector<CharRange> out;
    for (const MatchPiece& p : find(text)) {
        if (p.range.end > p.range.begin) {
            out.push_back(p.range);
        }
    }
    return out;
}

std::vector<CharRange> splitPieces(std::vector<MatchPiece> pieces, SplitBehavior behavior,
                                   bool invert) {
    if (invert) {
        for (MatchPiece& p : pieces) {
            p.isMatch = !p.isMatch;
        }
    }
    // HF's NormalizedString::split, folding the (range, isMatch) list the same way.
    std::vector<MatchPiece> merged;
    bool previousMatch = false;
    switch (behavior) {
        case SplitBehavior::Removed:
            std::erase_if(pieces, [](const MatchPiece& p) { return p.isMatch; });
            merged = std::move(pieces);
            break;
        case SplitBehavior::Isolated:
            merged = std::move(pieces);
            break;
        case SplitBehavior::MergedWithPrevious:
        case SplitBehavior::Contiguous:
            for (const MatchPiece& p : pieces) {
                const bool join = behavior == SplitBehavior::Contiguous
                                      ? p.isMatch == previousMatch
                                      : p.isMatch && !previousMatch;
                if (join && !merged.empty()) {
                    merged.back().range.end = p.range.end;
                } else {
                    merged.push_back(p);
                }
                previousMatch = p.isMatch;
            }
            break;
        case SplitBehavior::MergedWithNext:
            for (auto it = pieces.rbegin(); it != pieces.rend(); ++it) {
                if (it->isMatch && !previousMatch && !merged.empty()) {
                    merged.back().range.begin = it->range.begin;
                } else {
                    merged.push_back(*it);
                }
                previousMatch = it->isMatch;
            }
            std::reverse(merged.begin(), merged.end());
            break;
    }
    std::vector<CharRange> out;
    for (const MatchPiece& p : merged) {
        if (p.range.end > p.range.begin) {
            out.push_back(p.range);
        }
    }
    return out;
}

std::vector<NormalizedText> metaspace(const NormalizedText& text, const MetaspaceOptions& options) {
    NormalizedText replaced = text;
    for (NormalizedChar& c : replaced) {
        if (c.cp == U' ') {
            c.cp = options.replacement;
        }
    }
    const bool startsWithReplacement =
        !replaced.empty() && replaced.front().cp == options.replacement;
    const bool prepend =
        !replaced.empty() && !startsWithReplacement &&
        (options.prependScheme == PrependScheme::Always ||
         (options.prependScheme == PrependScheme::First && replaced.front().origBegin == 0));
    if (prepend) {
        prependText(replaced, std::u32string(1, options.replacement));
    }
    if (!options.split) {
        return {std::move(replaced)};
    }
    std::vector<MatchPiece> pieces;
    std::size_t gapBegin = 0;
    for (std::size_t i = 0; i < replaced.size(); ++i) {
        if (replaced[i].cp == options.replacement) {
            if (i > gapBegin) {
                pieces.push_back({{gapBegin, i}, false});
            }
            pieces.push_back({{i, i + 1}, true});
            gapBegin = i + 1;
        }
    }
    if (gapBegin < replaced.size()) {
        pieces.push_back({{gapBegin, replaced.size()}, false});
    }
    std::vector<NormalizedText> words;
    for (const CharRange& r :
         splitPieces(std::move(pieces), SplitBehavior::MergedWithNext, false)) {
        words.emplace_back(replaced.begin() + static_cast<std::ptrdiff_t>(r.begin),
                           replaced.begin() + static_cast<std::ptrdiff_t>(r.end));
    }
    return words;
}

const std::array<char32_t, 256>& byteToUnicode() {
    static const std::array<char32_t, 256> kTable = makeByteTable();
    return kTable;
}

std::string byteLevelString(std::string_view bytes) {
    const auto& table = byteToUnicode();
    std::string out;
    out.reserve(bytes.size() * 2);
    for (char b : bytes) {
        appendUtf8(out, table[static_cast<unsigned char>(b)]);
    }
    return out;
}

}  // namespace attnscope::tokenize
