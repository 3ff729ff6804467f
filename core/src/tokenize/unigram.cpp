#include "attnscope/tokenize/unigram.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "attnscope/base/error.h"
#include "attnscope/tokenize/unicode.h"
#include "word_bytes.h"

namespace attnscope::tokenize {
namespace {

// The crate's kUnkPenalty: the unknown piece scores this much below the worst piece.
constexpr double kUnkPenalty = 10.0;

std::uint64_t edgeKey(std::int32_t node, unsigned char byte) {
    return (static_cast<std::uint64_t>(node) << 8) | byte;
}

std::size_t utf8Length(unsigned char lead) {
    if (lead < 0x80) {
        return 1;
    }
    if (lead >= 0xF0) {
        return 4;
    }
    return lead >= 0xE0 ? 3 : 2;
}

}  // namespace

UnigramModel::UnigramModel(std::vector<std::pair<std::string, double>> pieces,
                           UnigramOptions options)
    : m_options(std::move(options)) {
    if (m_options.unkId) {
        if (pieces.empty()) {
            throw FormatError(m_options.source + ": an unk_id with an empty vocabulary");
        }
        if (*m_options.unkId < 0 || static_cast<std::size_t>(*m_options.unkId) >= pieces.size()) {
            throw FormatError(m_options.source + ": unk_id " + std::to_string(*m_options.unkId) +
                              " is not an id of the " + std::to_string(pieces.size()) +
                              "-piece vocabulary");
        }
    }
    double minScore = std::numeric_limits<double>::infinity();
    m_scores.reserve(pieces.size());
    m_leaf.push_back(-1);  // the root
    for (std::size_t id = 0; id < pieces.size(); ++id) {
        const auto& [piece, score] = pieces[id];
        const auto pieceId = static_cast<std::int32_t>(id);
        m_vocab.add(piece, pieceId);
        m_scores.push_back(score);
        minScore = std::min(minScore, score);
        std::int32_t node = 0;
        for (char ch : piece) {
            const auto [it, added] =
                m_edges.try_emplace(edgeKey(node, static_cast<unsigned char>(ch)),
                                    static_cast<std::int32_t>(m_leaf.size()));
            if (added) {
                m_leaf.push_back(-1);
            }
            node = it->second;
        }
        if (node != 0) {
            // As the crate's token_to_ids: a piece listed twice is known by its later id.
            m_leaf[static_cast<std::size_t>(node)] = pieceId;
        }
    }
    m_unkScore = minScore - kUnkPenalty;
    if (m_options.byteFallback) {
        m_byteIds.assign(256, -1);
        char name[8];
        for (unsigned b = 0; b < 256; ++b) {
            std::snprintf(name, sizeof name, "<0x%02X>", b);
            m_byteIds[b] = m_vocab.find(name).value_or(-1);
        }
    }
}

std::int32_t UnigramModel::child(std::int32_t node, unsigned char byte) const {
    const auto it = m_edges.find(edgeKey(node, byte));
    return it == m_edges.end() ? -1 : it->second;
}

std::vector<UnigramModel::Piece> UnigramModel::viterbi(std::string_view bytes) const {
    struct Node {
        std::int32_t id = 0;
        double score = 0.0;
        std::optional<std::size_t> start;  // where the best path's last piece starts
    };

    const std::size_t size = bytes.size();
    std::vector<Node> best(size + 1);
    auto relax = [&](std::size_t from, std::size_t to, std::int32_t id, double score) {
        Node& target = best[to];
        const double candidate = best[from].score + score;
        if (!target.start || candidate > target.score) {
            target = {id, candidate, from};
        }
    };
    std::size_t from = 0;
    while (from < size) {
        const std::size_t charLength =
            std::min(utf8Length(static_cast<unsigned char>(bytes[from])), size - from);
        bool singleCharPiece = false;
        std::int32_t node = 0;
        for (std::size_t end = from; end < size; ++end) {
            node = child(node, static_cast<unsigned char>(bytes[end]));
            if (node < 0) {
                break;
            }
            const std::int32_t id = m_leaf[static_cast<std::size_t>(node)];
            if (id >= 0) {
                relax(from, end + 1, id, m_scores[static_cast<std::size_t>(id)]);
                singleCharPiece = singleCharPiece || end + 1 - from == charLength;
            }
        }
        if (!singleCharPiece) {
            if (!m_options.unkId) {
                throw FormatError(m_options.source + ": \"" +
                                  clipped(bytes.substr(from, charLength)) +
                                  "\" is in no piece and the model has no unk_id");
            }
            relax(from, from + charLength, *m_options.unkId, m_unkScore);
        }
        from += charLength;
    }
    // Walk back; runs of unknown pieces become one (the crate's fuse_unk).
    std::vector<Piece> pieces;
    std::size_t end = size;
    while (end > 0) {
        const Node& n = best[end];
        const std::size_t start = *n.start;
        const bool unk = m_options.unkId && n.id == *m_options.unkId;
        if (unk && !pieces.empty() && pieces.back().id == n.id) {
            pieces.back().byteBegin = start;
        } else {
            pieces.push_back({n.id, start, end});
        }
        end = start;
    }
    return {pieces.rbegin(), pieces.rend()};
}

void UnigramModel::tokenize(std::span<const NormalizedChar> word,
                            std::vector<ModelToken>& out) const {
    auto [bytes, byteToChar] = detail::wordBytes(word);
    byteToChar.push_back(word.size());  // a piece's end byte maps to the character after it
    for (const Piece& p : viterbi(bytes)) {
        const std::string_view text =
            std::string_view(bytes).substr(p.byteBegin, p.byteEnd - p.byteBegin);
        const std::size_t begin = byteToChar[p.byteBegin];
        const std::size_t end = byteToChar[p.byteEnd];
        // The crate looks every token's text up again: a fused unknown run is no piece.
        if (const auto id = m_vocab.find(text)) {
            out.push_back({*id, begin, end});
        } else {
            appendFallback(text, begin, end, out);
        }
    }
}

void UnigramModel::appendFallback(std::string_view text, std::size_t begin, std::size_t end,
                                  std::vector<ModelToken>& out) const {
    if (m_options.byteFallback) {
        bool all = true;
        for (char b : text) {
            all = all && m_byteIds[static_cast<unsigned char>(b)] >= 0;
        }
        if (all) {
            for (char b : text) {
                out.push_back({m_byteIds[static_cast<unsigned char>(b)], begin, end});
            }
            return;
        }
    }
    if (!m_options.unkId) {  // not reached: only unknown runs are no piece, and they need one
        throw FormatError(m_options.source + ": \"" + clipped(text) + "\" has no id");
    }
    out.push_back({*m_options.unkId, begin, end});
}

}  // namespace attnscope::tokenize
