#include "attnscope/tokenize/wordpiece.h"

#include "attnscope/base/error.h"

namespace attnscope::tokenize {

WordPieceModel::WordPieceModel(Vocab vocab, WordPieceOptions options)
    : m_vocab(std::move(vocab)), m_options(std::move(options)) {
    const auto unk = m_vocab.find(m_options.unkToken);
    if (!unk) {
        throw FormatError("WordPiece model: unk_token: \"" + m_options.unkToken +
                          "\" is not in the vocabulary, expected the unknown token to be in it");
    }
    m_unkId = *unk;
}

// The loop is written out rather than taken from a library because its exact order is what
// defines the output: at each start, try the longest remaining substring first and shrink it one
// code point at a time; the first piece found in the vocabulary is taken.
void WordPieceModel::tokenize(std::span<const NormalizedChar> word,
                              std::vector<ModelToken>& out) const {
    if (word.empty()) {
        return;
    }
    if (word.size() > m_options.maxInputCharsPerWord) {
        out.push_back({m_unkId, 0, word.size()});
        return;
    }
    // UTF-8 of the word and the byte offset of every character, so substrings are slices.
    std::string utf8;
    std::vector<std::size_t> offsets;
    offsets.reserve(word.size() + 1);
    for (const NormalizedChar& c : word) {
        offsets.push_back(utf8.size());
        appendUtf8(utf8, c.cp);
    }
    offsets.push_back(utf8.size());

    const std::size_t firstNew = out.size();
    std::string candidate;
    std::size_t start = 0;
    while (start < word.size()) {
        std::size_t end = word.size();
        bool found = false;
        while (start < end) {
            const std::string_view piece(utf8.data() + offsets[start],
                                         offsets[end] - offsets[start]);
            std::optional<std::int32_t> id;
            if (start == 0) {
                id = m_vocab.find(piece);
            } else {
                candidate.assign(m_options.continuingSubwordPrefix);
                candidate.append(piece);
                id = m_vocab.find(candidate);
            }
            if (id) {
                out.push_back({*id, start, end});
                found = true;
                break;
            }
            --end;
        }
        if (!found) {
            out.resize(firstNew);
            out.push_back({m_unkId, 0, word.size()});
            return;
        }
        start = end;
    }
}

}  // namespace attnscope::tokenize
