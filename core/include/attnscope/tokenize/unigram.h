// The Unigram model of a tokenizer.json (T5, ALBERT, XLM-R, mBART), as Hugging Face's Rust crate
// `tokenizers` runs it (models/unigram/model.rs, encode_optimized). No library offers HF's
// Unigram: libsentencepiece runs a .model file but not a tokenizer.json's piece list, and its
// byte fallback and unknown handling differ in detail from the crate's, so it is written here.
//
// Viterbi over the UTF-8 bytes of one pre-tokenized word: at every character start, each piece
// the word continues with (found by walking a byte trie of all pieces) extends the best path by
// its score; a character no single piece covers can be crossed by the unknown piece at
// min_score - 10 (the crate's kUnkPenalty). Start positions are visited left to right and a path
// replaces the best one ending at the same place only when strictly better, so on a tie the path
// whose last piece starts earliest wins. Consecutive unknown stretches are fused into one token
// (fuse_unk, always on for Unigram), and so is a matched unknown piece next to them. A token
// whose text is not a piece becomes, with byte_fallback, one <0xXX> piece per byte (all spanning
// the whole token) when every byte has one, else the unknown id.
//
// Immutable after construction; `tokenize` is const and thread-safe. Construction throws
// FormatError for an empty vocabulary with an unknown id or an unknown id outside it; `tokenize`
// throws FormatError "<source>: ..." when the word needs the unknown piece and the model has none
// (the crate fails the same way).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "attnscope/tokenize/normalized_text.h"
#include "attnscope/tokenize/vocab.h"
#include "attnscope/tokenize/wordpiece.h"

namespace attnscope::tokenize {

struct UnigramOptions {
    std::optional<std::int32_t> unkId;  // unk_id; none: an uncovered character is an error
    bool byteFallback = false;          // byte_fallback
    std::string source;                 // "<file>: model", for errors while encoding
};

class UnigramModel {
public:
    // `pieces[i]` is the piece with id i and its score (a log probability).
    UnigramModel(std::vector<std::pair<std::string, double>> pieces, UnigramOptions options);

    // Appends the pieces of `word` to `out`; spans are character ranges of `word`.
    void tokenize(std::span<const NormalizedChar> word, std::vector<ModelToken>& out) const;

    const Vocab& vocab() const { return m_vocab; }

    const UnigramOptions& options() const { return m_options; }

private:
    // A token the Viterbi pass picks, before byte fallback, with its byte range.
    struct Piece {
        std::int32_t id = 0;
        std::size_t byteBegin = 0;
        std::size_t byteEnd = 0;
    };

    std::vector<Piece> viterbi(std::string_view bytes) const;
    // One trie node per piece prefix; children are found through m_edges.
    std::int32_t child(std::int32_t node, unsigned char byte) const;
    void appendFallback(std::string_view text, std::size_t begin, std::size_t end,
                        std::vector<ModelToken>& out) const;

    Vocab m_vocab;
    std::vector<double> m_scores;  // by id
    UnigramOptions m_options;
    double m_unkScore = 0.0;
    std::vector<std::int32_t> m_leaf;  // by trie node: the piece id ending there, or -1
    std::unordered_map<std::uint64_t, std::int32_t> m_edges;  // (node << 8 | byte) -> child
    std::vector<std::int32_t> m_byteIds;  // <0xXX> piece ids by byte, -1 when absent
};

}  // namespace attnscope::tokenize
