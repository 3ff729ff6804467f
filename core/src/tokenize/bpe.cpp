#include "attnscope/tokenize/bpe.h"

#include <queue>

#include "attnscope/base/error.h"
#include "attnscope/tokenize/pre_tokenizer.h"

namespace attnscope::tokenize {
namespace {

std::uint64_t pairKey(std::int32_t left, std::int32_t right) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(left)) << 32) |
           static_cast<std::uint32_t>(right);
}

struct Candidate {
    std::uint32_t rank = 0;
    std::size_t pos = 0;
    std::int32_t id = 0;

    // std::priority_queue pops the largest; order so the lowest rank, then leftmost, comes out.
    bool operator<(const Candidate& other) const {
        return rank != other.rank ? rank > other.rank : pos > other.pos;
    }
};

std::int32_t pieceId(const Vocab& vocab, const std::string& piece, const BpeMerge& merge) {
    const auto id = vocab.find(piece);
    if (!id) {
        throw FormatError(merge.where + ": merge \"" + merge.left + " " + merge.right +
                          "\": piece \"" + piece + "\" is not in the vocabulary");
    }
    return *id;
}

// "<0x0A>": how SentencePiece-style vocabularies spell a byte (HF's byte_fallback).
std::string byteFallbackPiece(unsigned b) {
    static constexpr std::string_view kDigits = "0123456789ABCDEF";
    std::string out = "<0x";
    out += kDigits[b >> 4];
    out += kDigits[b & 0xF];
    out += '>';
    return out;
}

std::size_t utf8Length(unsigned char lead) {
    return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

}  // namespace

// One piece of the word being merged: a doubly linked list over the initial pieces.
struct BpeModel::Symbol {
    std::int32_t id = 0;
    std::ptrdiff_t prev = -1;
    std::ptrdiff_t next = -1;
    std::size_t begin = 0;  // bytes of the word
    std::size_t len = 0;    // 0 once merged into its left neighbour
};

BpeModel::BpeModel(Vocab vocab, const std::vector<BpeMerge>& merges, BpeOptions options)
    : m_vocab(std::move(vocab)), m_options(std::move(options)) {
    if (m_options.unkToken) {
        m_unkId = m_vocab.find(*m_options.unkToken);
    }
    for (unsigned b = 0; b < 256; ++b) {
        const std::string piece = m_options.byteLevel
                                      ? byteLevelString(std::string(1, static_cast<char>(b)))
                                      : byteFallbackPiece(b);
        if (const auto id = m_vocab.find(piece)) {
            m_byteIds[b] = *id;
        }
    }
    m_merges.reserve(merges.size());
    for (std::size_t rank = 0; rank < merges.size(); ++rank) {
        const BpeMerge& m = merges[rank];
        const std::int32_t left = pieceId(m_vocab, m.left, m);
        const std::int32_t right = pieceId(m_vocab, m.right, m);
        const std::int32_t merged = pieceId(m_vocab, m.left + m.right, m);
        // A repeated merge takes its later rank, as HF's map insertion does.
        m_merges.insert_or_assign(pairKey(left, right),
                                  MergeTarget{static_cast<std::uint32_t>(rank), merged});
    }
}

std::optional<BpeModel::MergeTarget> BpeModel::findMerge(std::int32_t left,
                                                         std::int32_t right) const {
    const auto it = m_merges.find(pairKey(left, right));
    if (it == m_merges.end()) {
        return std::nullopt;
    }
    return it->second;
}

void BpeModel::tokenize(std::string_view word, std::vector<ModelToken>& out) const {
    if (word.empty()) {
        return;
    }
    if (m_options.ignoreMerges) {
        if (const auto id =
                m_vocab.find(m_options.byteLevel ? byteLevelString(word) : std::string(word))) {
            out.push_back({*id, 0, word.size()});
            return;
        }
    }
    if (!m_options.useCache) {
        merge(word, out);
        return;
    }
    {
        const std::lock_guard lock(m_cacheMutex);
        const auto it = m_cache.find(word);
        if (it != m_cache.end()) {
            out.insert(out.end(), it->second.begin(), it->second.end());
            return;
        }
    }
    std::vector<ModelToken> pieces;
    merge(word, pieces);
    out.insert(out.end(), pieces.begin(), pieces.end());
    const std::lock_guard lock(m_cacheMutex);
    if (m_cache.size() < kCacheCapacity) {
        m_cache.emplace(std::string(word), std::move(pieces));
    }
}

void BpeModel::merge(std::string_view word, std::vector<ModelToken>& out) const {
    std::vector<Symbol> symbols = initialSymbols(word);
    std::priority_queue<Candidate> queue;
    auto pushPair = [&](std::size_t pos) {
        const Symbol& s = symbols[pos];
        if (s.next < 0) {
            return;
        }
        if (const auto m = findMerge(s.id, symbols[static_cast<std::size_t>(s.next)].id)) {
            queue.push({m->rank, pos, m->id});
        }
    };
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
        pushPair(i);
    }
    while (!queue.empty()) {
        const Candidate top = queue.top();
        queue.pop();
        Symbol& left = symbols[top.pos];
        if (left.len == 0 || left.next < 0) {
            continue;
        }
        const auto rightPos = static_cast<std::size_t>(left.next);
        Symbol& right = symbols[rightPos];
        // Skip entries made stale by an earlier merge of either side.
        const auto current = findMerge(left.id, right.id);
        if (!current || current->id != top.id) {
            continue;
        }
        left.id = top.id;
        left.len += right.len;
        left.next = right.next;
        right.len = 0;
        if (left.next >= 0) {
            symbols[static_cast<std::size_t>(left.next)].prev =
                static_cast<std::ptrdiff_t>(top.pos);
        }
        if (left.prev >= 0) {
            pushPair(static_cast<std::size_t>(left.prev));
        }
        pushPair(top.pos);
    }
    for (const Symbol& s : symbols) {
        if (s.len > 0) {
            out.push_back({s.id, s.begin, s.begin + s.len});
        }
    }
}

// The word's first pieces, linked into a list. Byte-level: one per byte. Otherwise one per
// character, or its <0xNN> pieces when the vocabulary lacks it and byte_fallback is on. Anything
// left becomes the unknown token (consecutive ones fused into one if asked), or is dropped when
// there is none, as HF's BPE::merge_word does.
std::vector<BpeModel::Symbol> BpeModel::initialSymbols(std::string_view word) const {
    std::vector<Symbol> symbols;
    symbols.reserve(word.size());
    std::optional<Symbol> unk;  // waits in case the next piece is unknown too
    std::size_t i = 0;
    while (i < word.size()) {
        const std::size_t len =
            m_options.byteLevel
                ? 1
                : std::min(utf8Length(static_cast<unsigned char>(word[i])), word.size() - i);
        const std::size_t before = symbols.size();
        if (addCharSymbols(word, i, len, symbols)) {
            if (unk) {  // keep text order: the pending unknown goes before the new pieces
                symbols.insert(symbols.begin() + static_cast<std::ptrdiff_t>(before), *unk);
                unk.reset();
            }
        } else if (m_unkId) {
            if (unk && m_options.fuseUnk) {
                unk->len += len;
            } else {
                if (unk) {
                    symbols.push_back(*unk);
                }
                unk = Symbol{*m_unkId, -1, -1, i, len};
            }
        }
        i += len;
    }
    if (unk) {
        symbols.push_back(*unk);
    }
    for (std::size_t k = 0; k < symbols.size(); ++k) {
        symbols[k].prev = static_cast<std::ptrdiff_t>(k) - 1;
        symbols[k].next = k + 1 < symbols.size() ? static_cast<std::ptrdiff_t>(k + 1) : -1;
    }
    return symbols;
}

// Appends the pieces of word[begin, begin + len) (one byte, or one character) if the vocabulary
// has them; false if it is unknown. Byte-fallback pieces are appended one per byte.
bool BpeModel::addCharSymbols(std::string_view word, std::size_t begin, std::size_t len,
                              std::vector<Symbol>& symbols) const {
    std::optional<std::int32_t> id;
    if (m_options.byteLevel) {
        id = m_byteIds[static_cast<unsigned char>(word[begin])];
    } else {
        id = m_vocab.find(word.substr(begin, len));
    }
    if (id) {
        symbols.push_back({*id, -1, -1, begin, len});
        return true;
    }
    if (m_options.byteLevel || !m_options.byteFallback) {
        return false;
    }
    for (std::size_t k = 0; k < len; ++k) {
        if (!m_byteIds[static_cast<unsigned char>(word[begin + k])]) {
            return false;  // HF falls back only when every byte has a piece
        }
    }
    for (std::size_t k = 0; k < len; ++k) {
        symbols.push_back(
            {*m_byteIds[static_cast<unsigned char>(word[begin + k])], -1, -1, begin + k, 1});
    }
    return true;
}

}  // namespace attnscope::tokenize
