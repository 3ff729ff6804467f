// Scores every attention head against gold dependency relations over a corpus, sentence by
// sentence, as Clark et al. 2019 do (methods.md §1.2–1.3).
//
// Usage:
//   DependencyAccumulator acc(model.spec.nLayers, model.spec.nHeads);
//   for (each gold sentence) {
//       SentenceAnalysis a = analyzeText(model, text, {});
//       acc.addSentence(gold, a.tokens, a.forward);   // skipped sentences are counted
//   }
//   RelationTable table = acc.relationTable();
//
// Aggregation is by COUNTS: every relation keeps integer correct and no-prediction counts per
// layer × head × direction, correct counts per baseline offset, and one integer total (the words
// with that relation, the same for every head). Accuracy is correct / (total − no prediction):
// a word whose candidates all have zero attention (dependency_score.h) is neither right nor
// wrong for that head. Accuracies are ratios of the sums, never an average of per-sentence
// ratios. The bucket "all" counts every word, punct and root included.
//
// Threads: the accumulator is a plain value. Two threads may each fill their own accumulator
// and the caller merges them afterwards with `merge`; one accumulator must not be filled from
// two threads at once. Const queries may run concurrently.
// Errors: InvalidArgument for caller bugs (vectors of different lengths in a GoldSentence, a
// forward result whose shape does not match, merging accumulators of another shape or
// options). Problems of the data (a word without token, a head out of range) skip the sentence
// and are counted by reason.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/analysis/dependency_score.h"
#include "attnscope/analysis/word_attention.h"
#include "attnscope/base/head_id.h"
#include "attnscope/forward/forward_result.h"
#include "attnscope/tokenize/tokenizer.h"

namespace attnscope::analysis {

// The bucket holding every word. A gold label spelled "all" would collide with it, so a
// sentence carrying one is skipped.
inline constexpr std::string_view kAllRelations = "all";

// Relations the table leaves out, as Clark's "Table 1" cell does.
inline constexpr std::array<std::string_view, 2> kTableSkippedRelations = {"root", "punct"};

// Skip reasons (the keys of skipReasons()).
inline constexpr std::string_view kSkipNoWords = "sentence has no words";
inline constexpr std::string_view kSkipBadHead = "gold head out of range";
inline constexpr std::string_view kSkipReservedLabel = "relation label 'all' is reserved";
inline constexpr std::string_view kSkipUnaligned = "a word gets no token";

// How the words of a multiword token get model tokens (word_alignment.h, issue 16).
enum class MultiwordRule {
    Split,  // each word its own tokens where the forms spell the token and the tokens allow it
    Share,  // every word gets all the token's tokens (GoldSentence::ownSpans ignored)
};

struct ScoreOptions {
    FromAggregation aggregation = FromAggregation::Mean;  // methods.md §1.1
    bool mergeSubtypes = false;  // count "nsubj:pass" as "nsubj"; labels are verbatim otherwise
    MultiwordRule multiword = MultiwordRule::Split;
};

struct Counts {
    std::int64_t correct = 0;
    std::int64_t total = 0;         // words with the relation
    std::int64_t noPrediction = 0;  // of those, words the head made no prediction for

    // Words with a prediction: the denominator of accuracy.
    std::int64_t predicted() const { return total - noPrediction; }

    // correct / predicted(); NaN when nothing was predicted.
    double accuracy() const;
};

struct BestHead {
    HeadId head;
    Direction direction = Direction::DepToHead;
    Counts counts;
};

struct BestOffset {
    int offset = 0;
    Counts counts;
};

struct RelationRow {
    std::string relation;
    std::int64_t count = 0;  // words with this relation
    BestHead best;           // best attention head, methods.md §1.2 rule 7
    BestOffset baseline;     // best fixed offset, methods.md §1.3
};

struct RelationTable {
    // "all" first, then relations by count (descending; equal counts by name), root and punct
    // left out.
    std::vector<RelationRow> rows;
    // Relations below the minimum count, same order: too few words for a stable accuracy.
    std::vector<RelationRow> rare;
};

// What addSentence did with a sentence.
struct SentenceOutcome {
    bool scored = false;
    std::string reason;  // one of the kSkip* reasons when skipped
    std::string detail;  // which word, which head: "word 3 'n't' (bytes 5-8) gets no token"
};

class DependencyAccumulator {
public:
    DependencyAccumulator(int nLayers, int nHeads, const ScoreOptions& options = {});

    // Aligns the gold words to `tokens` (word_alignment.h), turns every head's map of `forward`
    // into word level (word_attention.h), predicts heads in both directions and counts them, with
    // the offset baselines. `tokens` are those the forward pass ran on (SentenceAnalysis::tokens).
    SentenceOutcome addSentence(const GoldSentence& gold,
                                const std::vector<tokenize::Token>& tokens,
                                const forward::ForwardResult& forward);

    // Counts given predictions: [nLayers * nHeads * kDirections][nWords], head-major, index
    // headIndex(head, nHeads) * kDirections + direction. For callers with their own predictor
    // (and for tests). Returns the same outcome as addSentence, without alignment.
    SentenceOutcome addPredictions(const GoldSentence& gold,
                                   const std::vector<std::vector<int>>& headPredictions);

    // Counts a sentence the caller skipped before scoring (e.g. too long for the model).
    void addSkipped(const std::string& reason);

    // Adds another accumulator's counts. InvalidArgument if shape or options differ.
    void merge(const DependencyAccumulator& other);

    int nLayers() const { return m_nLayers; }

    int nHeads() const { return m_nHeads; }

    const ScoreOptions& options() const { return m_options; }

    std::int64_t sentencesScored() const { return m_scored; }

    std::int64_t sentencesSkipped() const;

    const std::map<std::string, std::int64_t, std::less<>>& skipReasons() const {
        return m_skipReasons;
    }

    // Every relation key seen, "all" included, by count descending (equal counts by name).
    std::vector<std::string> relations() const;

    // Words with this relation; 0 for a relation never seen.
    std::int64_t count(std::string_view relation) const;

    Counts counts(std::string_view relation, HeadId head, Direction direction) const;

    // offset in [kMinOffset, kMaxOffset]; InvalidArgument otherwise.
    Counts baselineCounts(std::string_view relation, int offset) const;

    // Max accuracy over heads × directions; equal accuracies go to the larger layer, then the
    // larger head, then "head<-dep" over "dep->head" (Clark's sorted tuples). Heads with no
    // prediction for the relation take no part. Empty for a relation never seen, or when no
    // head predicted any of its words.
    std::optional<BestHead> bestHead(std::string_view relation) const;

    // Max accuracy over offsets; equal accuracies go to the larger offset.
    std::optional<BestOffset> bestOffset(std::string_view relation) const;

    // [nLayers, nHeads] accuracy of every head; NaN everywhere for a relation never seen.
    Matrix accuracyHeatmap(std::string_view relation, Direction direction) const;

    RelationTable relationTable(std::int64_t minCount = 100) const;

    // The raw counts of one relation; saved and restored by partial results (partial_state.h),
    // so a corpus split across processes merges into what one run counts.
    struct RelationCounts {
        std::int64_t total = 0;
        std::vector<std::int64_t> correct;       // [kDirections, nLayers, nHeads]
        std::vector<std::int64_t> noPrediction;  // [kDirections, nLayers, nHeads]
        std::array<std::int64_t, kOffsets> offsetCorrect{};
    };

    using RelationMap = std::map<std::string, RelationCounts, std::less<>>;
    using ReasonMap = std::map<std::string, std::int64_t, std::less<>>;

    const RelationMap& relationCounts() const { return m_relations; }

    // Replaces every count. InvalidArgument when a relation's vectors are not
    // [kDirections * nLayers * nHeads] long; the values are the caller's to check.
    void restore(RelationMap relations, std::int64_t scored, ReasonMap skipReasons);

private:
    std::optional<SentenceOutcome> checkGold(const GoldSentence& gold);
    void count(const GoldSentence& gold, const std::vector<std::vector<int>>& headPredictions);
    SentenceOutcome skip(std::string_view reason, std::string detail);
    const RelationCounts* find(std::string_view relation) const;
    RelationRow row(const std::string& relation) const;
    Counts headCounts(const RelationCounts& c, HeadId head, Direction direction) const;

    std::size_t slot(HeadId head, Direction direction) const {
        return (static_cast<std::size_t>(direction) * static_cast<std::size_t>(m_nLayers) +
                static_cast<std::size_t>(head.layer)) *
                   static_cast<std::size_t>(m_nHeads) +
               static_cast<std::size_t>(head.head);
    }

    int m_nLayers = 0;
    int m_nHeads = 0;
    ScoreOptions m_options;
    RelationMap m_relations;
    std::int64_t m_scored = 0;
    ReasonMap m_skipReasons;
};

}  // namespace attnscope::analysis
