#include "attnscope/tokenize/detokenize.h"

#include <optional>
#include <unordered_map>

#include "attnscope/tokenize/pre_tokenizer.h"
#include "attnscope/tokenize/unicode.h"

namespace attnscope::tokenize {

namespace {

bool isRoleSpecial(const Tokenizer& t, std::int32_t id) {
    for (const SpecialRole role : {SpecialRole::Cls, SpecialRole::Sep, SpecialRole::Bos,
                                   SpecialRole::Eos, SpecialRole::Pad, SpecialRole::Mask}) {
        if (t.specialId(role) == id) {
            return true;
        }
    }
    return false;
}

// "<0x41>" -> 0x41.
std::optional<unsigned char> byteFallback(const std::string& piece) {
    if (piece.size() != 6 || !piece.starts_with("<0x") || piece.back() != '>') {
        return std::nullopt;
    }
    unsigned value = 0;
    for (std::size_t i = 3; i < 5; ++i) {
        const char c = piece[i];
        const int digit = c >= '0' && c <= '9'   ? c - '0'
                          : c >= 'A' && c <= 'F' ? c - 'A' + 10
                          : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                                 : -1;
        if (digit < 0) {
            return std::nullopt;
        }
        value = value * 16 + static_cast<unsigned>(digit);
    }
    return static_cast<unsigned char>(value);
}

std::string byteLevelBytes(const std::string& piece) {
    static const std::unordered_map<char32_t, unsigned char> kByteOf = [] {
        std::unordered_map<char32_t, unsigned char> m;
        const auto& table = byteToUnicode();
        for (std::size_t b = 0; b < table.size(); ++b) {
            m.emplace(table[b], static_cast<unsigned char>(b));
        }
        return m;
    }();
    if (findInvalidUtf8(piece)) {
        return piece;  // not a byte-level spelling; validUtf8 repairs it at the end
    }
    std::string out;
    for (const char32_t c : decodeUtf8(piece, "token").chars) {
        const auto it = kByteOf.find(c);
        if (it != kByteOf.end()) {
            out.push_back(static_cast<char>(it->second));
        } else {
            appendUtf8(out, c);  // an added token spelled in plain characters
        }
    }
    return out;
}

std::string metaspaceBytes(const std::string& piece) {
    if (const auto byte = byteFallback(piece)) {
        return std::string(1, static_cast<char>(*byte));
    }
    std::string out;
    const std::string_view meta = "\xE2\x96\x81";  // ▁
    std::string_view rest = piece;
    for (auto p = rest.find(meta); p != std::string_view::npos; p = rest.find(meta)) {
        out.append(rest.substr(0, p)).push_back(' ');
        rest.remove_prefix(p + meta.size());
    }
    out.append(rest);
    return out;
}

// Invalid UTF-8 (a byte-level or byte-fallback sequence cut short) becomes U+FFFD per bad byte.
std::string validUtf8(const std::string& bytes) {
    std::string out;
    std::size_t i = 0;
    while (i < bytes.size()) {
        const std::string rest = bytes.substr(i);
        const auto bad = findInvalidUtf8(rest);
        if (!bad) {
            out += rest;
            break;
        }
        out += rest.substr(0, *bad);
        out += "\xEF\xBF\xBD";
        i += *bad + 1;
    }
    return out;
}

}  // namespace

std::string decodeIds(const Tokenizer& tokenizer, const std::vector<std::int32_t>& ids) {
    std::string bytes;
    const TokenizerKind kind = tokenizer.kind();
    for (const std::int32_t id : ids) {
        if (isRoleSpecial(tokenizer, id)) {
            continue;
        }
        const std::string piece = tokenizer.idToToken(id);
        if (piece.empty()) {
            bytes.append("<id ").append(std::to_string(id)).append(">");
        } else if (kind == TokenizerKind::WordPiece) {
            if (piece.starts_with("##")) {
                bytes += piece.substr(2);
            } else {
                if (!bytes.empty()) {
                    bytes += ' ';
                }
                bytes += piece;
            }
        } else if (kind == TokenizerKind::ByteLevelBpe) {
            bytes += byteLevelBytes(piece);
        } else if (kind == TokenizerKind::WordLevel) {
            bytes += piece;
        } else {
            bytes += metaspaceBytes(piece);
        }
    }
    const bool metaspace = kind != TokenizerKind::WordPiece &&
                           kind != TokenizerKind::ByteLevelBpe && kind != TokenizerKind::WordLevel;
    if (metaspace && bytes.starts_with(' ')) {
        bytes.erase(0, 1);
    }
    return validUtf8(bytes);
}

}  // namespace attnscope::tokenize
