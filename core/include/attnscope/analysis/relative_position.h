// How one head's attention depends on relative position: the mean attention by offset
// d = key − query, and Voita et al.'s positional-head rule (methods.md §2.1–2.2), accumulated
// over one sentence or a whole corpus.
//
// Usage:
//   RelativePositionAccumulator acc;                      // one per head
//   for (each sentence) acc.add(result, head, specialFlags(tokens));
//   PositionalVerdict v = acc.verdict();                  // r*, its frequency, confidence
//   OffsetValue prev = acc.at(-1);                        // mean attention to the previous token
//
// Which queries count: a query row is left out when it is a special token (option), when the
// whole row is zero (a fully masked row, or a head switched off: no distribution to read), or
// when no key is eligible for it. Eligible keys are those the mask allows and, with
// `skipSpecialKeys`, that are not special. Every counted query contributes
//   - to offset d, for each eligible-position key j = i + d that exists (0 <= j < n, not a
//     skipped special): its weight A[i][j]. A key the mask forbids still counts, with weight 0,
//     but is not "allowed" (OffsetValue::allowedQueries), so a causal map's positive offsets
//     show as present-but-masked rather than as missing;
//   - to Voita's rule: r_i = argmax_j A[i][j] − i over eligible keys, ties to the first key
//     (NumPy's argmax, methods.md §9.1); self (r = 0) is allowed (§9.2). A query for which
//     i + r* is out of range still counts in the denominator (§2.2, the conservative choice).
// Counts are summed over sentences, never averaged per sentence: a long sentence weighs more.
// Weights are summed exactly (exact_sum.h), so the means do not depend on the order in which
// sentences are added or accumulators merged (threads, shards of a corpus job: issue 35).
//
// Threads: a plain value. Fill one accumulator per thread and `merge` them afterwards.
// Errors: InvalidArgument for caller bugs (a map of the wrong size, merging accumulators with
// different options, a head outside the result).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "attnscope/analysis/exact_sum.h"
#include "attnscope/base/head_id.h"
#include "attnscope/forward/forward_result.h"
#include "attnscope/tokenize/tokenizer.h"

namespace attnscope::analysis {

// Voita et al. 2019: "at least 90 % of the time" the maximum goes to one relative position.
inline constexpr double kVoitaPositionalThreshold = 0.90;

struct RelativePositionOptions {
    // §2.1 [spec choice]: special tokens ([CLS], [SEP], <s>, </s>, padding) are not queries.
    bool skipSpecialQueries = true;
    // Also leave them out as keys: neither averaged at their offset nor an argmax candidate
    // (the maximum is over the remaining keys, not renormalised).
    bool skipSpecialKeys = false;

    bool operator==(const RelativePositionOptions&) const = default;
};

struct OffsetValue {
    int offset = 0;                   // key − query
    double meanAttention = 0;         // sum of weights / queries; NaN when queries == 0
    std::int64_t queries = 0;         // counted queries whose key at this offset exists
    std::int64_t allowedQueries = 0;  // of those, how many the mask lets see that key
    std::int64_t argmaxQueries = 0;   // counted queries whose largest weight is at this offset
};

struct PositionalVerdict {
    std::int64_t queries = 0;  // counted queries (the denominator)
    int bestOffset = 0;        // r*: the most frequent argmax offset (ties: smaller |r|, then < 0)
    double frequency = 0;      // share of counted queries with r_i == r*; NaN without queries
    bool positional = false;   // frequency >= threshold
    double confidence = 0;     // §2.1: mean over counted queries of the largest weight; NaN
};

class RelativePositionAccumulator {
public:
    explicit RelativePositionAccumulator(const RelativePositionOptions& options = {});

    // One head's map of one sentence. probs: [n, n] row-major, rows = queries. special: [n] or
    // empty (nothing special). allowed: [n, n] with 1 = key allowed, or empty (all allowed).
    void add(std::span<const float> probs, int n, std::span<const std::uint8_t> special = {},
             std::span<const std::uint8_t> allowed = {});

    // The same for `head` of a forward result, with its mask.
    void add(const forward::ForwardResult& result, HeadId head,
             std::span<const std::uint8_t> special = {});

    // Adds another accumulator's counts; the result equals one pass over both inputs.
    void merge(const RelativePositionAccumulator& other);

    const RelativePositionOptions& options() const { return m_options; }

    // Offsets seen run from -maxOffset() to +maxOffset() (longest sentence's n − 1).
    int maxOffset() const { return m_maxOffset; }

    // Any offset; one never seen has zero counts and NaN mean.
    OffsetValue at(int offset) const;

    // Every offset from -maxOffset() to +maxOffset(), in order.
    std::vector<OffsetValue> offsets() const;

    PositionalVerdict verdict(double threshold = kVoitaPositionalThreshold) const;

    std::int64_t sentences() const { return m_sentences; }

    std::int64_t countedQueries() const { return m_queries; }

    // Query rows left out: special, all-zero, or without an eligible key.
    std::int64_t skippedQueries() const { return m_skipped; }

    // The raw state, saved and restored by partial results (partial_state.h).
    struct Bin {
        ExactSum sum;
        std::int64_t queries = 0;
        std::int64_t allowed = 0;
        std::int64_t argmax = 0;
    };

    const std::vector<Bin>& bins() const { return m_bins; }  // [2 * maxOffset() + 1]

    const ExactSum& confidenceSum() const { return m_confidenceSum; }

    struct Totals {
        std::int64_t queries = 0;
        std::int64_t skipped = 0;
        std::int64_t sentences = 0;
    };

    // Replaces the state; InvalidArgument unless bins has 2 * maxOffset + 1 entries
    // (maxOffset >= 0). The values are the caller's to check.
    void restore(int maxOffset, std::vector<Bin> bins, const ExactSum& confidenceSum,
                 const Totals& totals);

private:
    void grow(int maxOffset);

    Bin& bin(int offset) { return m_bins[static_cast<std::size_t>(offset + m_maxOffset)]; }

    void addRow(const float* row, int q, int n, std::span<const std::uint8_t> special,
                const std::uint8_t* allowedRow);

    RelativePositionOptions m_options;
    int m_maxOffset = 0;
    std::vector<Bin> m_bins = std::vector<Bin>(1);  // [2 * m_maxOffset + 1], offset + maxOffset
    ExactSum m_confidenceSum;
    std::int64_t m_queries = 0;
    std::int64_t m_skipped = 0;
    std::int64_t m_sentences = 0;
};

// [tokens.size()] 1 for special tokens, the `special` argument of add().
std::vector<std::uint8_t> specialFlags(const std::vector<tokenize::Token>& tokens);

// One accumulator per head of a model, in [layer][head] order, filled sentence by sentence.
class ModelPositions {
public:
    ModelPositions(int nLayers, int nHeads, const RelativePositionOptions& options = {});

    // Every head of `result`; `special` as in add(). InvalidArgument for another model's shape.
    void add(const forward::ForwardResult& result, std::span<const std::uint8_t> special = {});

    void merge(const ModelPositions& other);

    int nLayers() const { return m_nLayers; }

    int nHeads() const { return m_nHeads; }

    const RelativePositionAccumulator& head(HeadId h) const;

    // Replaces one head's accumulator (partial_state.h); InvalidArgument for a head outside the
    // model or an accumulator with other options.
    void restoreHead(HeadId h, RelativePositionAccumulator acc);

private:
    int m_nLayers = 0;
    int m_nHeads = 0;
    std::vector<RelativePositionAccumulator> m_heads;  // [nLayers * nHeads]
};

}  // namespace attnscope::analysis
