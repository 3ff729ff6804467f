// The saturation lab's per-head statistics (issue 33; ViT-22B, Dehghani et al. 2023; Zhai et
// al. 2023, "entropy collapse"): how large each head's attention logits grow, before and after
// QK-norm and soft-cap, and how often its rows collapse onto one key.
//
// Pooled over the query rows of one or more forward passes (fully masked rows left out):
//   meanEntropy          mean row entropy (nats)
//   maxAbsUnnormed       largest |q·kᵀ·scale| with q and k taken before any QK-norm
//                        (ForwardResult::rowMaxAbsUnnormed; NaN when a pass did not record it)
//   maxAbsScaled         largest |q·kᵀ·scale| after the QK-norm, before the soft-cap
//   maxAbsLogit          largest |logit| the softmax saw (after the soft-cap)
//   meanRowMaxAbsLogit   mean over rows of the row's largest |logit| (after the cap)
//   oneHotShare          share of rows whose largest weight is >= kOneHotWeight
// Every maximum is over the keys the head's layer allows. Mergeable (add / merge), so a corpus
// pools sentence by sentence; the sums are exact (exact_sum.h), so pooling in any order or split
// into shards and merged (issue 35) gives the same bits. Pure values; thread-compatible.
#pragma once

#include <cstdint>
#include <vector>

#include "attnscope/analysis/exact_sum.h"
#include "attnscope/base/head_id.h"
#include "attnscope/forward/forward_result.h"

namespace attnscope::analysis {

// A row is "effectively one-hot" when its largest weight reaches this (issue 33).
inline constexpr float kOneHotWeight = 0.99f;

struct HeadSaturation {
    HeadId head;
    std::int64_t rows = 0;  // query rows pooled (fully masked rows left out)
    float meanEntropy = 0;
    float maxAbsUnnormed = 0;
    float maxAbsScaled = 0;
    float maxAbsLogit = 0;
    float meanRowMaxAbsLogit = 0;
    float oneHotShare = 0;
    std::int64_t oneHotRows = 0;
};

class SaturationAccumulator {
public:
    // Adds every head's rows of `r`. Throws InvalidArgument when r's shape differs from the
    // passes added before (another model), or r lacks the row summaries of a forward pass.
    void add(const forward::ForwardResult& r);

    // Pools another accumulator's rows into this one (same shape, or either empty).
    void merge(const SaturationAccumulator& other);

    // One entry per head in [layer][head] order; empty before the first add.
    std::vector<HeadSaturation> result() const;

    int sentences() const { return m_sentences; }

    // Whether every pass added recorded the unnormed logits' maxima.
    bool hasUnnormed() const { return m_sentences > 0 && m_unnormedEverywhere; }

    // The raw state, saved and restored by partial results (partial_state.h).
    struct Sums {
        std::int64_t rows = 0;
        std::int64_t oneHot = 0;
        ExactSum entropy;
        ExactSum rowMaxAbsLogit;
        float maxUnnormed = 0;
        float maxScaled = 0;
        float maxLogit = 0;
    };

    int nLayers() const { return m_nLayers; }

    int nHeads() const { return m_nHeads; }

    bool unnormedEverywhere() const { return m_unnormedEverywhere; }

    const std::vector<Sums>& sums() const { return m_heads; }  // [layer][head]

    // Replaces the state. InvalidArgument unless heads has nLayers * nHeads entries (none when
    // sentences is 0); the values are the caller's to check.
    void restore(int nLayers, int nHeads, int sentences, bool unnormedEverywhere,
                 std::vector<Sums> heads);

private:
    int m_nLayers = 0;
    int m_nHeads = 0;
    int m_sentences = 0;
    bool m_unnormedEverywhere = true;
    std::vector<Sums> m_heads;
};

// The statistics of one pass: an accumulator with `r` alone.
std::vector<HeadSaturation> saturationStats(const forward::ForwardResult& r);

}  // namespace attnscope::analysis
