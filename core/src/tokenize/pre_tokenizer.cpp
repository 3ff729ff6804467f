#include "attnscope/tokenize/pre_tokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "attnscope/base/error.h"

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

struct ByteLevelSplitter::Impl {
    pcre2_code* code = nullptr;
    bool jit = false;
};

ByteLevelSplitter::ByteLevelSplitter() : m_impl(std::make_unique<Impl>()) {
    const std::string pattern = gpt2Pattern();
    int errorCode = 0;
    PCRE2_SIZE errorOffset = 0;
    m_impl->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.c_str()), pattern.size(),
                                 PCRE2_UTF | PCRE2_UCP, &errorCode, &errorOffset, nullptr);
    if (m_impl->code == nullptr) {
        std::array<PCRE2_UCHAR, 256> message{};
        pcre2_get_error_message(errorCode, message.data(), message.size());
        throw Error(
            "byte-level pre-tokenizer: pattern offset " + std::to_string(errorOffset) +
            ": PCRE2 rejected the GPT-2 regex: " + reinterpret_cast<const char*>(message.data()));
    }
    m_impl->jit = pcre2_jit_compile(m_impl->code, PCRE2_JIT_COMPLETE) == 0;
}

ByteLevelSplitter::~ByteLevelSplitter() {
    pcre2_code_free(m_impl->code);
}

std::vector<CharRange> ByteLevelSplitter::split(std::span<const NormalizedChar> text) const {
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
    std::vector<CharRange> pieces;
    std::size_t consumed = 0;  // bytes already assigned to a piece
    std::size_t start = 0;
    while (start < subject.size()) {
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
            throw InvalidArgument("byte-level pre-tokenizer: byte " + std::to_string(start) +
                                  ": PCRE2 match failed with code " + std::to_string(rc));
        }
        const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(match.get());
        const std::size_t mBegin = ov[0];
        const std::size_t mEnd = ov[1];
        if (mBegin > consumed) {
            pieces.push_back({byteToChar[consumed], byteToChar[mBegin]});
        }
        if (mEnd > mBegin) {
            pieces.push_back({byteToChar[mBegin], byteToChar[mEnd]});
            start = mEnd;
        } else {
            // The pattern cannot match empty text; step over one character if it ever does.
            start = mEnd + 1;
            while (start < subject.size() && (subject[start] & 0xC0) == 0x80) {
                ++start;
            }
        }
        consumed = mEnd;
    }
    if (consumed < subject.size()) {
        pieces.push_back({byteToChar[consumed], text.size()});
    }
    return pieces;
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
