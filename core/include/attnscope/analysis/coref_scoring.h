// Scoring every head on coreference (issue 16; Clark et al. 2019 §4.3, methods.md §1.4): for
// each mention with an earlier mention of its entity in the same input window, does the
// mention's head word attend most to the head word of one of its antecedents? Plus the paper's
// three baselines. The reader (documents, mentions, head words) is text/coref.h; the rules that
// follow are R4-R8, shared with tests/reference/coref_rules.py:
//
// Windows (R4). Per document, greedily: consecutive sentences' texts (each as dependency scoring
// rebuilds it, goldSentence) joined by one space while the tokenized text, special tokens
// included, has at most `limit` tokens (the model's positions, or a smaller user limit such as
// Clark's 128); the sentence that would overflow starts the next window; a sentence that alone
// does not fit is skipped and counted. Windows never overlap and never cross documents.
//
// Words and tokens. Tokens are aligned to the window's words as in dependency scoring
// (word_alignment.h, the multiword rule of CorefScoreOptions), except that a word that gets no
// token (GPT-2's "]." token starts in "]", so "." gets none) does not void the window: it is no
// candidate, and a mention whose head word has no token is not scored (counted in
// mentionsWithoutToken). Antecedent head words without a token are dropped from the mention's
// antecedents; a mention left with none is not scored either (same count).
//
// Scored mentions (R5). A mention m is scored when some mention of its entity in the window
// starts before it (by sentence, then first word) and has a head word other than m's; the head
// words of all such mentions are m's antecedents.
//
// Predictions (R6). A head's word-level map (from a word: mean of its tokens' rows, or as the
// options say; to a word: sum over its tokens), read at m's head word's row; candidates are all
// other words of the window that have a token; argmax, ties to the lowest word index; when every
// candidate has zero attention there is no prediction (Counts::noPrediction; accuracy = correct /
// predicted). Correct iff the predicted word is one of m's antecedent head words.
//
// Mention types (R7): the head word's UPOS, PRON -> pronoun, PROPN -> proper, else nominal.
//
// Baselines (R8). Candidates: every mention (of any entity) in the window that starts before m
// and whose head word is not m's. Each baseline picks one and is correct iff it is m's entity:
//   nearest     the candidate that starts last (ties: ends last, then the one read first);
//   head match  the nearest candidate whose head lemma equals m's (case-folded); none = wrong;
//   sieve       the nearest candidate of the first non-empty of: (1) the same word forms joined
//               by spaces (case-folded), (2) the same head lemma, (3) agreement of Number,
//               Gender and Person in the head words' FEATS (equal, or absent on either side),
//               (4) all candidates.
// Baselines are counted over the scored mentions, so their denominators equal the heads'.
//
// scoreCoref splits the windows into shares like scoreTreebank and merges them in order; the
// counts do not depend on the number of shares.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/analysis/dependency_accumulator.h"
#include "attnscope/analysis/dependency_score.h"
#include "attnscope/analysis/treebank_scoring.h"
#include "attnscope/base/cancel.h"
#include "attnscope/base/head_id.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"
#include "attnscope/text/conllu.h"
#include "attnscope/text/coref.h"

namespace attnscope::analysis {

// Count groups: all scored mentions, then by mention type (R7).
enum class MentionGroup { All, Pronoun, Proper, Nominal };
inline constexpr int kMentionGroups = 4;
std::string_view mentionGroupName(MentionGroup g);  // "all", "pronoun", "proper", "nominal"

enum class CorefBaseline { Nearest, HeadMatch, Sieve };
inline constexpr int kCorefBaselines = 3;
std::string_view corefBaselineName(CorefBaseline b);  // "nearest", "head_match", "sieve"

// A treebank read for coreference: its sentences, their mentions and each sentence's gold words
// and text as dependency scoring builds them.
struct CorefCorpus {
    std::string path;
    std::vector<text::Sentence> sentences;
    text::CorefResult coref;
    std::vector<GoldSentence> gold;  // [sentences]
    std::vector<std::string> texts;  // [sentences]
    std::vector<int> mentionHeads;   // [coref.mentions] head word id (R3)
    // "<file>:<line>: <reason>" of each CoNLL-U sentence readConllu left out as malformed.
    std::vector<std::string> conlluWarnings;

    // Reads the CoNLL-U file (text::readConllu's rules and errors, strict when options.strict;
    // FormatError when no sentence is usable) and its coreference.
    static CorefCorpus read(const std::string& path, const text::CorefOptions& options = {});
};

// Sentences [firstSentence, endSentence) of one document (indices into CorefCorpus::sentences).
struct CorefWindow {
    int document = 0;
    int firstSentence = 0;
    int endSentence = 0;

    friend bool operator==(const CorefWindow&, const CorefWindow&) = default;
};

struct CorefWindows {
    std::vector<CorefWindow> windows;  // in document and sentence order
    int sentencesSkipped = 0;          // sentences that alone exceed the limit
};

// R4. tokenCount(text) is the number of tokens the model takes for `text`, special tokens
// included.
CorefWindows makeWindows(const CorefCorpus& corpus,
                         const std::function<std::size_t(std::string_view)>& tokenCount,
                         std::size_t limit);

// A window's text and words: the sentences' texts joined by one space.
struct WindowText {
    std::string text;
    std::vector<ByteSpan> wordSpans;  // [words] of every sentence, in order
    std::vector<ByteSpan> ownSpans;   // [words]
    std::vector<std::string> forms;   // [words]
    std::vector<int> firstWord;       // [sentences in the window] index of its first word
};

WindowText windowText(const CorefCorpus& corpus, const CorefWindow& window);

// One scored mention of a window (R5, R7) with its baseline verdicts (R8). Word indices are
// 0-based indices into the window's words (WindowText::forms).
struct ScoredMention {
    int mention = 0;  // index into CorefCorpus::coref.mentions
    MentionGroup type = MentionGroup::Nominal;
    int headWord = 0;
    std::vector<int> antecedentWords;  // ascending, without duplicates
    std::array<bool, kCorefBaselines> baselineCorrect{};
};

// R5 and R8 for one window, before any token alignment (so every antecedent head word is
// listed; scoring then drops the words without a token). In mention order.
std::vector<ScoredMention> scoredMentions(const CorefCorpus& corpus, const CorefWindow& window);

// The gold arcs of a window for display: every scored mention's head word to each of its
// antecedents' head words (window word indices), nearest antecedent first.
struct CorefArc {
    int from = 0;
    int to = 0;
    int mention = 0;
};

std::vector<CorefArc> corefArcs(const CorefCorpus& corpus, const CorefWindow& window);

struct CorefCounts {
    std::int64_t documents = 0;
    std::int64_t sentences = 0;
    std::int64_t windows = 0;
    std::int64_t sentencesSkipped = 0;
    std::int64_t mentions = 0;              // complete continuous mentions read (coref.mentions)
    std::int64_t scoredMentions = 0;        // scored by the heads and the baselines
    std::int64_t mentionsWithoutToken = 0;  // would be scored, but a head word has no token
    std::int64_t discontinuous = 0;
    std::int64_t unclosed = 0;
    std::int64_t unmatched = 0;
    std::int64_t malformedSentences = 0;
};

class CorefAccumulator {
public:
    CorefAccumulator() = default;
    CorefAccumulator(int layers, int heads);

    int layers() const { return m_layers; }

    int heads() const { return m_heads; }

    // Counts::total = scored mentions of the group, noPrediction as in dependency scoring.
    const Counts& at(HeadId head, MentionGroup group) const;
    // Correct picks of a baseline; the denominator is scored(group).
    std::int64_t baselineCorrect(CorefBaseline baseline, MentionGroup group) const;
    std::int64_t scored(MentionGroup group) const;

    // The most accurate head of a group (correct / predicted; ties to the lowest layer, then
    // head); nullopt when no head predicted anything.
    std::optional<HeadId> bestHead(MentionGroup group) const;

    CorefCounts counts;

    // Adds one window's scored mentions: `predictions[h][k]` is head h's (headIndex) predicted
    // window word for mentions[k] (kNoPrediction when none). Mentions whose headWord is -1 (D11)
    // are skipped and counted in counts.mentionsWithoutToken, the others in
    // counts.scoredMentions; counts.windows grows by one. InvalidArgument for predictions of
    // another shape.
    void addWindow(const std::vector<ScoredMention>& mentions,
                   const std::vector<std::vector<int>>& predictions);
    // Adds another accumulator's counts, every CorefCounts field included (same shape, or
    // either one default-constructed). InvalidArgument for another shape.
    void merge(const CorefAccumulator& other);

    // The raw counts, saved and restored by partial results (partial_state.h).
    using GroupCounts = std::array<std::int64_t, kMentionGroups>;
    using BaselineCounts = std::array<GroupCounts, kCorefBaselines>;

    const std::vector<Counts>& headCounts() const { return m_counts; }  // [layer][head][group]

    // Replaces the head, baseline and scored counts (not `counts`). InvalidArgument when
    // headCounts is not [layers * heads * kMentionGroups] long; the values are the caller's to
    // check.
    void restore(std::vector<Counts> headCounts, const BaselineCounts& baselines,
                 const GroupCounts& scored);

private:
    int m_layers = 0;
    int m_heads = 0;
    std::vector<Counts> m_counts;  // [layer][head][group]
    BaselineCounts m_baselines{};
    GroupCounts m_scored{};
};

struct CorefScoreOptions {
    std::size_t maxTokens = 0;  // window limit; 0 or more than the model's positions = those
    FromAggregation aggregation = FromAggregation::Mean;
    MultiwordRule multiword = MultiwordRule::Split;
};

struct CorefShares {
    std::size_t shares = 1;  // windows i, i + shares, ... go to share i
    CancelToken cancel;      // checked between windows; a failing share also sets it
    // After every window, from whichever thread scored it: must be thread-safe; may be empty.
    std::function<void()> windowDone;
    // After every window that was run through the model, with its share and window index: one
    // thread per share; may be empty (dumps for the reference). A window runs through the model
    // only when some mention in it is scored (after dropping words without a token); the
    // reference dumps and re-scores the same windows.
    std::function<void(std::size_t share, std::size_t window, const std::string& text,
                       const std::vector<tokenize::Token>&, const forward::ForwardResult&)>
        scored;
};

// The window limit for a model: its positions, or options.maxTokens when that is smaller.
std::size_t windowLimit(const model::Model& model, const CorefScoreOptions& options);

// R4 with the model's tokenizer and windowLimit. Throws InvalidArgument when the model has no
// tokenizer; Cancelled (checked between sentences) when cancelled.
CorefWindows cutWindows(const model::Model& model, const CorefCorpus& corpus,
                        const CorefScoreOptions& options, const CancelToken& cancel = {});

// Scores every head and baseline on `windows` (from cutWindows with the same options); fills
// every field of counts. Throws InvalidArgument when the model has no tokenizer; the first error
// of a share (other than Cancelled) is rethrown after every share stopped; Cancelled when
// cancelled.
CorefAccumulator scoreCoref(const model::Model& model, const CorefCorpus& corpus,
                            const CorefWindows& windows, const CorefScoreOptions& options,
                            const CorefShares& how, const ShareExecutor& run);

}  // namespace attnscope::analysis
