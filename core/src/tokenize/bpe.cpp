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

// One piece of the word being merged: a doubly linked list over the initial byte pieces.
struct Symbol {
    std::int32_t id = 0;
    std::ptrdiff_t prev = -1;
    std::ptrdiff_t next = -1;
    std::size_t begin = 0;  // bytes of the word
    std::size_t len = 0;    // 0 once merged into its left neighbour
};

struct Candidate {
    std::uint32_t rank = 0;
    std::size_t pos = 0;
    std::int32_t id = 0;

    // std::priority_queue pops the largest; order so the lowest rank, then leftmost, comes out.
    bool operator<(const Candidate& other) const {
        return rank != other.rank ? rank > other.rank : pos > other.pos;
    }
};

// The word's bytes as single-byte pieces, linked into a list. A byte with no piece becomes the
// unknown token (fused with a preceding one if asked), or is dropped when there is none, as HF
// does.
std::vector<Symbol> initialSymbols(std::string_view word,
                                   const std::array<std::optional<std::int32_t>, 256>& byteIds,
                                   std::optional<std::int32_t> unkId, bool fuseUnk) {
    std::vector<Symbol> symbols;
    symbols.reserve(word.size());
    for (std::size_t i = 0; i < word.size(); ++i) {
        std::optional<std::int32_t> id = byteIds[static_cast<unsigned char>(word[i])];
        if (!id) {
            if (!unkId) {
                continue;
            }
            if (fuseUnk && !symbols.empty() && symbols.back().id == *unkId &&
                symbols.back().begin + symbols.back().len == i) {
                ++symbols.back().len;
                continue;
            }
            id = unkId;
        }
        Symbol s;
        s.id = *id;
        s.begin = i;
        s.len = 1;
        symbols.push_back(s);
    }
    for (std::size_t i = 0; i < symbols.size(); ++i) {
        symbols[i].prev = static_cast<std::ptrdiff_t>(i) - 1;
        symbols[i].next = i + 1 < symbols.size() ? static_cast<std::ptrdiff_t>(i + 1) : -1;
    }

    return symbols;
}

std::int32_t pieceId(const Vocab& vocab, const std::string& piece, const BpeMerge& merge) {
    const auto id = vocab.find(piece);
    if (!id) {
        throw FormatError(merge.where + ": merge \"" + merge.left + " " + merge.right +
                          "\": piece \"" + piece + "\" is not in the vocabulary");
    }
    return *id;
}

}  // namespace

BpeModel::BpeModel(Vocab vocab, const std::vector<BpeMerge>& merges, BpeOptions options)
    : m_vocab(std::move(vocab)), m_options(std::move(options)) {
    if (m_options.unkToken) {
        m_unkId = m_vocab.find(*m_options.unkToken);
    }
    for (unsigned b = 0; b < 256; ++b) {
        const std::string piece = byteLevelString(std::string(1, static_cast<char>(b)));
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
        if (const auto id = m_vocab.find(byteLevelString(word))) {
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
    std::vector<Symbol> symbols = initialSymbols(word, m_byteIds, m_unkId, m_options.fuseUnk);
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

}  // namespace attnscope::tokenize
