// llama.cpp's pre-tokenizer regexes for byte-level GGUF vocabularies, by `tokenizer.ggml.pre`,
// as llm_tokenizer_bpe lists them (src/llama-vocab.cpp). llama.cpp runs the GPT-2 and Llama 3
// patterns with hand-written matchers, a pattern using \p{..} with std::regex over a text where
// every non-ASCII character stands for its Unicode category, and any other with std::wregex
// over the text with every non-ASCII White_Space character replaced by U+000B. The patterns
// below, run on the real characters, give the same pieces: `$` (the end of the piece there) is
// `\z`, and the ranges of the wregex patterns leave out the non-ASCII White_Space characters
// llama.cpp's replacement keeps them from matching (U+3000 in DeepSeek's punctuation, the
// spaces inside its U+0800-U+4E00 range).
// The patterns are format data: they must be these strings for the ids to be llama.cpp's.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <utility>

#include "attnscope/tokenize/pre_tokenizer.h"
#include "gguf_internal.h"

namespace attnscope::tokenize::detail {
namespace {

// The GPT-2 split, without the final `|\s+` (a lone whitespace left unmatched becomes a piece
// of its own all the same).
constexpr const char* kGpt2 =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))";

// Llama 3 (tiktoken cl100k) with the case-insensitive contractions spelled out.
constexpr const char* kLlama3 =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|)"
    R"(\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// Qwen2: Llama 3's with single digits.
constexpr const char* kQwen2 =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|)"
    R"(\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// DeepSeek's CJK runs: U+4E00-U+9FA5, U+0800-U+4E00, U+AC00-U+D7FF (as DeepSeek wrote them),
// less U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F and U+3000 (see above).
constexpr const char* kDeepseekCjk =
    R"([\x{4E00}-\x{9FA5}\x{0800}-\x{167F}\x{1681}-\x{1FFF}\x{200B}-\x{2027}\x{202A}-\x{202E})"
    R"(\x{2030}-\x{205E}\x{2060}-\x{2FFF}\x{3001}-\x{4E00}\x{AC00}-\x{D7FF}]+)";

// DeepSeek LLM's letters: the cased letters (Lu, Ll, Lt) of DeepSeek's Unicode version, range
// by range as its tokenizer.json lists them.
constexpr const char* kDeepseekLetters =
    R"(\s?[\x{41}-\x{5A}\x{61}-\x{7A}\x{B5}\x{C0}-\x{D6}\x{D8}-\x{F6}\x{F8}-\x{1BA})"
    R"(\x{1BC}-\x{1BF}\x{1C4}-\x{293}\x{295}-\x{2AF}\x{370}-\x{373}\x{376}\x{377})"
    R"(\x{37B}-\x{37D}\x{37F}\x{386}\x{388}-\x{38A}\x{38C}\x{38E}-\x{3A1})"
    R"(\x{3A3}-\x{3F5}\x{3F7}-\x{481}\x{48A}-\x{52F}\x{531}-\x{556}\x{10A0}-\x{10C5})"
    R"(\x{13A0}-\x{13F5}\x{13F8}-\x{13FD}\x{1C90}-\x{1CBA}\x{1CBD}-\x{1CBF})"
    R"(\x{1D00}-\x{1D2B}\x{1D6B}-\x{1D77}\x{1D79}-\x{1D9A}\x{1E00}-\x{1F15})"
    R"(\x{1F18}-\x{1F1D}\x{1F20}-\x{1F45}\x{1F48}-\x{1F4D}\x{1F50}-\x{1F57}\x{1F59})"
    R"(\x{1F5B}\x{1F5D}\x{1F5F}-\x{1F7D}\x{1F80}-\x{1FB4}\x{1FB6}-\x{1FBC}\x{1FBE})"
    R"(\x{1FC2}-\x{1FC4}\x{1FC6}-\x{1FCC}\x{1FD0}-\x{1FD3}\x{1FD6}-\x{1FDB})"
    R"(\x{1FE0}-\x{1FEC}\x{1FF2}-\x{1FF4}\x{1FF6}-\x{1FFC}\x{2102}\x{2107})"
    R"(\x{210A}-\x{2113}\x{2115}\x{2119}-\x{211D}\x{2124}\x{2126}\x{2128})"
    R"(\x{212A}-\x{212D}\x{212F}-\x{2134}\x{2139}\x{213C}-\x{213F}\x{2145}-\x{2149})"
    R"(\x{214E}\x{2183}\x{2184}\x{2C00}-\x{2C7B}\x{2C7E}-\x{2CE4}\x{2CEB}-\x{2CEE})"
    R"(\x{2CF2}\x{2CF3}\x{A640}-\x{A66D}\x{A680}-\x{A69B}\x{A722}-\x{A76F})"
    R"(\x{A771}-\x{A787}\x{A78B}-\x{A78E}\x{AB70}-\x{ABBF}\x{FB00}-\x{FB06})"
    R"(\x{FB13}-\x{FB17}\x{FF21}-\x{FF3A}\x{FF41}-\x{FF5A}\x{10400}-\x{1044F})"
    R"(\x{104B0}-\x{104D3}\x{104D8}-\x{104FB}\x{10C80}-\x{10CB2}\x{10CC0}-\x{10CF2})"
    R"(\x{118A0}-\x{118DF}\x{1E900}-\x{1E943}]+)";

// DeepSeek LLM's punctuation: ASCII `!-/` and `:-~`, their full-width forms, U+2018-U+201F
// quotes and U+3000-U+3002 less the ideographic space U+3000 (see above).
constexpr const char* kDeepseekPunct =
    R"(\s?[!-/:-~\x{FF01}-\x{FF0F}\x{FF1A}-\x{FF5E}\x{2018}-\x{201F}\x{3001}-\x{3002}]+)";

GgufPreType gpt2() {
    return {{kGpt2}, false, false};
}

GgufPreType llama3(bool llama3Defaults) {
    return {{kLlama3}, llama3Defaults, llama3Defaults};
}

// Every `pre` value llama.cpp maps to one of the pre-tokenizers above.
const std::vector<std::pair<std::string_view, GgufPreType>>& table() {
    static const std::vector<std::pair<std::string_view, GgufPreType>> kTable = [] {
        const GgufPreType defaults{
            {R"([\p{P}\$\+<=>\^~\|]+)", kGpt2, R"(\p{N}+)", "[0-9][0-9][0-9]"}, false, false};
        const GgufPreType starcoder{{R"(\p{N})", kGpt2}, false, false};
        const GgufPreType qwen2{{kQwen2}, false, false};
        std::vector<std::pair<std::string_view, GgufPreType>> t = {
            {"default", defaults},
            {"deepseek-llm",
             {{R"([\r\n])", kDeepseekLetters, kDeepseekPunct, R"(\s+\z)", kDeepseekCjk,
               R"(\p{N}+)"},
              false,
              false}},
            {"deepseek-coder",
             {{R"([\r\n])", R"(\s?\p{L}+)", R"(\s?\p{P}+)", kDeepseekCjk, R"(\p{N})"},
              false,
              false}},
            {"falcon", {{R"([\p{P}\$\+<=>\^~\|`]+)", kGpt2, "[0-9][0-9][0-9]"}, false, false}},
        };
        for (std::string_view name : {"llama3", "llama-v3", "llama-bpe", "falcon3", "pixtral"}) {
            t.emplace_back(name, llama3(true));
        }
        for (std::string_view name : {"dbrx", "smaug-bpe"}) {
            t.emplace_back(name, llama3(false));
        }
        for (std::string_view name : {"gpt-2", "phi-2", "mpt", "olmo"}) {
            t.emplace_back(name, gpt2());
        }
        for (std::string_view name : {"starcoder", "refact", "command-r", "smollm", "codeshell"}) {
            t.emplace_back(name, starcoder);
        }
        for (std::string_view name : {"qwen2", "deepseek-r1-qwen", "stablelm2"}) {
            t.emplace_back(name, qwen2);
        }
        return t;
    }();
    return kTable;
}

}  // namespace

std::optional<GgufPreType> ggufPreType(std::string_view pre) {
    const std::string_view name = pre.empty() ? "default" : pre;
    for (const auto& [key, type] : table()) {
        if (key == name) {
            return type;
        }
    }
    return std::nullopt;
}

std::string ggufUnmergeablePattern(const Vocab& pieces) {
    std::string ranges;
    const auto hex = [](std::uint32_t cp) {
        std::array<char, 16> buf{};
        std::snprintf(buf.data(), buf.size(), "\\x{%X}", cp);
        return std::string(buf.data());
    };
    for (std::uint32_t b = 0; b < 256; ++b) {
        if (pieces.find(byteLevelString(std::string(1, static_cast<char>(b))))) {
            continue;
        }
        // The code points whose UTF-8 form starts with b: one for ASCII; 2, 3, 4-byte leads.
        std::uint32_t first = 0;
        std::uint32_t last = 0;
        if (b < 0x80) {
            first = last = b;
        } else if (b >= 0xC2 && b <= 0xDF) {
            first = (b & 0x1F) << 6;
            last = first | 0x3F;
        } else if (b >= 0xE0 && b <= 0xEF) {
            first = std::max<std::uint32_t>((b & 0x0F) << 12, 0x800);
            // UTF-8 has no surrogates (0xED's U+D800-DFFF), nor has PCRE2's class.
            last = b == 0xED ? 0xD7FF : ((b & 0x0F) << 12) | 0xFFF;
        } else if (b >= 0xF0 && b <= 0xF4) {
            first = std::max<std::uint32_t>((b & 0x07) << 18, 0x10000);
            last = std::min<std::uint32_t>(((b & 0x07) << 18) | 0x3FFFF, 0x10FFFF);
        } else {
            continue;  // continuation bytes, and bytes valid UTF-8 never holds
        }
        ranges += first == last ? hex(first) : hex(first) + "-" + hex(last);
    }
    return ranges.empty() ? std::string() : "[" + ranges + "]";
}

std::string ggufPreTypeNames() {
    std::string out;
    for (const auto& [key, type] : table()) {
        out += (out.empty() ? "" : ", ") + std::string(key);
    }
    return out;
}

}  // namespace attnscope::tokenize::detail
