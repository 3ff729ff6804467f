// The WordPiece model, as BERT and Hugging Face's `WordPiece` run it: greedy longest-match-first
// over one pre-tokenized word, continuation pieces prefixed with "##", and the whole word becomes
// [UNK] when some part of it matches nothing or it is longer than `maxInputCharsPerWord` code
// points. Immutable after construction; `tokenize` is const and thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "attnscope/tokenize/normalized_text.h"
#include "attnscope/tokenize/vocab.h"

namespace attnscope::tokenize {

// A piece produced by a model, spanning characters [begin, end) of the word it came from.
struct ModelToken {
    std::int32_t id = 0;
    std::size_t begin = 0;
    std::size_t end = 0;
};

struct WordPieceOptions {
    std::string unkToken = "[UNK]";
    std::string continuingSubwordPrefix = "##";
    std::size_t maxInputCharsPerWord = 100;
};

class WordPieceModel {
public:
    // Throws FormatError if the vocabulary lacks the unknown token.
    WordPieceModel(Vocab vocab, WordPieceOptions options);

    // Appends the pieces of `word` to `out`.
    void tokenize(std::span<const NormalizedChar> word, std::vector<ModelToken>& out) const;

    const Vocab& vocab() const { return m_vocab; }

    const WordPieceOptions& options() const { return m_options; }

private:
    Vocab m_vocab;
    WordPieceOptions m_options;
    std::int32_t m_unkId = 0;
};

}  // namespace attnscope::tokenize
