// The WordLevel model of a tokenizer.json, as Hugging Face's crate runs it
// (models/wordlevel/mod.rs): each pre-tokenized word is looked up whole; a word not in the
// vocabulary becomes unk_token's id. When unk_token is not in the vocabulary either, the crate
// loads the file but fails on the first unknown word ("WordLevel error: Missing [UNK] token from
// the vocabulary"); so does this model, with a FormatError naming the file, unk_token and the
// word. (ChemTSv3's SMILES tokenizer is such a file: its unk_token "<unk>" is absent, so only
// texts made of whole vocabulary tokens, given one per pre-token, can be encoded.)
// Immutable after construction; `tokenize` is const and thread-safe.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "attnscope/tokenize/normalized_text.h"
#include "attnscope/tokenize/vocab.h"
#include "attnscope/tokenize/wordpiece.h"

namespace attnscope::tokenize {

struct WordLevelOptions {
    std::string unkToken = "<unk>";
    std::string source;  // "<file>: model", for errors while encoding
};

class WordLevelModel {
public:
    WordLevelModel(Vocab vocab, WordLevelOptions options);

    // Appends the one token of `word` to `out`.
    void tokenize(std::span<const NormalizedChar> word, std::vector<ModelToken>& out) const;

    const Vocab& vocab() const { return m_vocab; }

    const WordLevelOptions& options() const { return m_options; }

    // False when unk_token is not in the vocabulary, so an unknown word is an error.
    bool hasUnk() const { return m_unkId.has_value(); }

private:
    Vocab m_vocab;
    WordLevelOptions m_options;
    std::optional<std::int32_t> m_unkId;
};

}  // namespace attnscope::tokenize
