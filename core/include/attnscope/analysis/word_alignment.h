// Which model tokens make up which gold word, for word-level attention (methods.md §1.1).
//
// Clark et al. align by re-tokenizing each word alone and counting pieces; that only works for
// BERT. AttnScope tokenizes the whole text once and aligns by byte spans instead, so the same
// rule serves WordPiece and byte-level BPE with or without a prefix space:
//
//   * Units. Every special token ([CLS], [SEP], <s>, </s>, padding) is a unit of its own. Every
//     word is in one unit. Words with identical spans (the words of a CoNLL-U multiword token,
//     which share the range's span) form one alignment group.
//   * A non-special token belongs to the group whose span holds the token's first byte that
//     lies inside any word. As words are separated only by whitespace, that is the token's first
//     non-space character: GPT-2's "Ġthe" spans " the" and goes to "the". Llama's '▁' works
//     the same way: a '▁' standing for a space spans that space, and the '▁' Llama prepends
//     spans the first character, so "▁the" goes to "the" and "▁▁" before a word to that word.
//   * Multiword tokens (issue 16). When the caller gives the words their own spans inside the
//     token (`ownSpans`: the forms spell the token's text, "can't" = "ca" + "n't"), each of the
//     group's tokens goes to the word whose own span holds that first byte, and each word is a
//     unit of its own: GPT-2's "can" + "'t" give "ca" and "n't" one token each, "Ġtomorrow" +
//     "'s" give "tomorrow" and "'s" theirs. If a word would get no token that way (GPT-2's
//     single "gonna" over "gon" + "na"), or without own spans (French "du" = "de" + "le" does
//     not spell "du"), the words share one unit and all its tokens. Units are ordered by their
//     first token, so the word-level map reads like Clark's [CLS] w1 ... wn [SEP].
//   * A whitespace-only token belongs to the word starting right after it: GPT-2 splits the
//     pre-token " 🙂" of a rare character into a lone "Ġ" and byte pieces, and that "Ġ" is the
//     start of the word. (Put differently: the first non-space character at or after the token's
//     start, looking no further than its end — tests/reference/deps_reference.py reads it so.)
//   * Any other non-special token touching no word (a lone "Ġ" for an extra space between words,
//     "Ċ" for a newline) becomes a unit of its own, like a special token, so the word-level rows
//     still sum to 1; scoring leaves it out as it leaves out [CLS]/[SEP].
//   * A word that gets no token at all (its only token started in the previous word, or a special
//     token covers it) makes the sentence unalignable. That is an expected outcome on real
//     treebanks, so it is returned as a failure naming the word, not thrown: the caller skips the
//     sentence and counts it. Coreference scoring (issue 16, D11-D12) asks for
//     MissingWords::NoUnit instead: such a word gets wordUnit -1 and the rest is aligned.
//
// Word spans must be in text order and must not overlap unless identical; violating that is a
// caller bug and throws InvalidArgument. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "attnscope/tokenize/tokenizer.h"

namespace attnscope::analysis {

// A byte range [begin, end) of the text the tokens were made from.
struct ByteSpan {
    std::size_t begin = 0;
    std::size_t end = 0;

    bool operator==(const ByteSpan&) const = default;
};

enum class UnitKind {
    Special,  // a special token
    Word,     // one word, or the words of one multiword token that share it
    Other,    // a non-special token that touches no word (whitespace)
};

struct AlignmentUnit {
    UnitKind kind = UnitKind::Word;
    std::vector<int> tokens;  // token indices, ascending, never empty
    std::vector<int> words;   // word indices (0-based), ascending; empty unless kind == Word
};

struct WordAlignment {
    std::vector<AlignmentUnit> units;  // [nUnits] ordered by first token
    std::vector<int> wordUnit;         // [nWords] the unit of each word (-1: none, NoUnit)
    std::vector<int> tokenUnit;        // [nTokens] the unit of each token

    // Token lists of all units, the shape word-level attention takes.
    std::vector<std::vector<int>> unitTokens() const;
    // Indices of the Word units, in word order: the rows and columns scoring keeps (methods.md
    // §1.2).
    std::vector<int> wordUnits() const;
};

// What a word that gets no token does to the alignment.
enum class MissingWords {
    Fail,    // no alignment, an AlignmentFailure naming the first such word (dependency scoring)
    NoUnit,  // the alignment, with WordAlignment::wordUnit -1 for each such word (coreference)
};

// Why a sentence could not be aligned.
struct AlignmentFailure {
    int word = -1;       // 0-based index of the first word without a token
    std::string reason;  // "word 3 'n't' (bytes 5-8) gets no token"
};

struct AlignmentResult {
    std::optional<WordAlignment> alignment;   // set on success
    std::optional<AlignmentFailure> failure;  // set when a word gets no token

    bool ok() const { return alignment.has_value(); }
};

// Aligns `tokens` (as Tokenizer::encode returned them for the text) to the gold words, given by
// their byte spans in that text. `words` (the forms, same length as `wordSpans`, or empty) only
// serve the failure message. `ownSpans` (same length, or empty: the words of a multiword token
// share it) are the words' own bytes inside their multiword token, as GoldSentence::ownSpans.
// `missing` says what a word without a token does; with NoUnit the result is always ok().
// Throws InvalidArgument for spans out of order, overlapping or reversed, or when `words` or
// `ownSpans` has another length.
AlignmentResult alignWords(const std::vector<tokenize::Token>& tokens,
                           const std::vector<ByteSpan>& wordSpans,
                           const std::vector<std::string>& words = {},
                           const std::vector<ByteSpan>& ownSpans = {},
                           MissingWords missing = MissingWords::Fail);

}  // namespace attnscope::analysis
