// Predicting dependency heads from one attention head, and scoring a prediction against the
// gold tree, exactly as Clark et al. 2019 do (methods.md §1.2 and §1.3, CLARK
// `Syntax_Analysis.ipynb`). Sentence-by-sentence accumulation lives in dependency_accumulator.h.
//
// Conventions (methods.md §1.2):
//   * Word indices in predictions and gold heads are 1-based; 0 is ROOT.
//   * Attention predictions: the word-level map (word_attention.h) is read as a word x word map
//     (each word takes the row and column of its unit; special and whitespace units are dropped,
//     Clark's attn[1:-1, 1:-1]). A word's candidates are all OTHER words; the argmax over them
//     is taken, ties going to the LOWEST index as NumPy's argmax does. The argmax+1 is never 0,
//     so ROOT is never predicted and root words always count wrong.
//   * No prediction (issue 16). When every candidate has zero attention (a causal model's first
//     word in dep->head, its last word in head<-dep, a one-word sentence), the word gets
//     kNoPrediction: it is neither right nor wrong for that head and direction, and is counted
//     apart. Clark's code zeroes the diagonal and lets argmax pick index 0 there, which scored
//     such rows by an accident of position (wrong in one direction, possibly right in the other).
//   * Direction DepToHead (Clark's "dep->head") reads the map as is: the word the dependent
//     attends to most. HeadToDep (Clark's "head<-dep") reads its transpose: the word that
//     attends most to the dependent.
//   * Multiword tokens: words that share one alignment unit (word_alignment.h: the forms do not
//     spell the token, the tokens do not split there, or ScoreOptions asks to share) share its
//     row and column. As heads they tie, so the first word wins. Only the word itself is no
//     candidate, so the attention a multiword token pays to itself can predict a sibling
//     (Spanish "dámelo" = "da me lo": "me" -> "da"), exactly as if each word had been given the
//     token list of the multiword token.
// Pure functions; thread-safe. Throws InvalidArgument for inconsistent sizes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "attnscope/analysis/word_alignment.h"
#include "attnscope/base/tensor.h"

namespace attnscope::analysis {

// One gold-parsed sentence; all vectors have one entry per syntactic word (CoNLL-U word lines,
// multiword-token ranges and empty nodes excluded).
struct GoldSentence {
    std::vector<std::string> words;      // [nWords] FORM
    std::vector<int> heads;              // [nWords] 1-based HEAD, 0 = root
    std::vector<std::string> relations;  // [nWords] DEPREL verbatim ("nsubj:pass")
    std::vector<ByteSpan> wordSpans;     // [nWords] bytes in the text the model tokenized;
                                         // words of a multiword token share the range's span
    std::vector<ByteSpan> ownSpans;      // [nWords] or empty: a word's own bytes inside its
                                         // multiword token when the forms spell the token's
                                         // text ("ca" + "n't"), else its wordSpan
};

enum class Direction { DepToHead, HeadToDep };

// A word whose candidates all have zero attention: see the header comment.
inline constexpr int kNoPrediction = -1;

// How one word's prediction is scored.
enum class Verdict { Correct, Wrong, NoPrediction };

inline constexpr int kDirections = 2;

// Clark's keys: "dep->head" and "head<-dep" (the order of Clark's tie rule compares these).
std::string_view directionName(Direction d);

// Offsets of the fixed-offset baseline, methods.md §1.3: Python's range(-3, 3).
inline constexpr int kMinOffset = -3;
inline constexpr int kMaxOffset = 2;
inline constexpr int kOffsets = kMaxOffset - kMinOffset + 1;

// The relation key a label is counted under: verbatim, or without its subtype
// ("nsubj:pass" -> "nsubj") when `mergeSubtypes`.
std::string relationKey(std::string_view label, bool mergeSubtypes);

// Predicted head of every word, 1-based, or kNoPrediction. unitMap: [nUnits, nUnits] word-level
// attention of one head over `alignment`'s units. A word without a unit (wordUnit -1, from
// MissingWords::NoUnit) is no candidate and gets kNoPrediction. Returns [nWords].
std::vector<int> predictHeads(const Eigen::Ref<const Matrix>& unitMap,
                              const WordAlignment& alignment, Direction direction);

// The fixed-offset baseline: pred(i) = max(0, min(i + offset + 1, nWords)) for 0-based i. Left
// of the sentence start is ROOT, right of the end is the last word. Returns [nWords].
std::vector<int> predictByOffset(int nWords, int offset);

// How word i's prediction is scored (methods.md §1.2 rules 5–6). Normally predictions[i] against
// the gold head. `relation` is the key word i is counted under (relationKey). Clark's `poss`
// rule, kept with its operator precedence: when that key is "poss", its prediction is not the
// last word, and the next word is "'s" or "s'", the prediction of that next word is scored
// instead. A sentence-final `poss` word (which crashes Clark's code) is scored normally. The
// verdict is NoPrediction when the prediction that would be scored is kNoPrediction.
Verdict judgePrediction(const GoldSentence& gold, const std::vector<int>& predictions,
                        std::size_t i, std::string_view relation);

}  // namespace attnscope::analysis
