// Which heads matter on a corpus: the exact loss change of ablating each head alone, and
// Michel et al.'s pruning curve (methods.md §3; definitions shared with
// tests/reference/importance_reference.py).
//
// Objective. Masked LM: each sentence gets a seeded masking fixed across heads (maskSentence):
// of its non-special positions, k = max(1, floor(f·m + 0.5)) (capped at m) are replaced by the
// mask token, f = maskFraction (0.15), and the model predicts the original tokens there.
// Causal LM: every position i < n−1 predicts token i+1. Sentences with no target (no
// non-special token; a single token) are skipped and counted.
// loss = Σ −log p(target) / number of targets, over the whole corpus (token-weighted);
// accuracy = the share of targets whose most probable token (lowest id on ties) is the target.
//
// Units are query heads, or key/value groups with kvGroups (every query head sharing one).
// deltaLoss[u] = loss with unit u ablated (`kind`) − the clean loss; its pass restarts at the
// unit's layer from the clean pass (forward::runForwardFrom).
// Pruning (Michel §4): units ordered by increasing deltaLoss (ties: lower layer, then lower
// head); at fraction f the first floor(f·N + 0.5) units are ablated together; loss and accuracy
// after each step. The order is computed once, not re-estimated after each step.
// Thread-safe and const on the model; work runs on the caller's executor.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "attnscope/analysis/treebank_scoring.h"
#include "attnscope/base/cancel.h"
#include "attnscope/forward/interventions.h"
#include "attnscope/model/model.h"

namespace attnscope::analysis {

enum class ImportanceObjective : std::uint8_t { MaskedLm, CausalLm };

struct ImportanceOptions {
    double maskFraction = 0.15;
    std::uint64_t seed = 0;
    // Mean: forward::computeHeadMeans over the items' inputs (masked ids for a masked LM).
    forward::AblationKind kind = forward::AblationKind::Zero;
    bool kvGroups = false;
    std::vector<double> pruningFractions = {0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
    // Parallel shares of the work (threads the executor offers): items i, i + shares, … go to
    // share i, which runs each one's clean pass and then every unit's (or pruning point's) pass
    // from it. Losses are summed in item order, so the result does not depend on the shares.
    std::size_t shares = 1;
    CancelToken cancel;  // checked before every pass and between layers
    // Fraction of the passes done, from whichever thread ran one: must be thread-safe.
    ProgressFn progress;
    // [items] the source sentence of each item (ImportanceCorpus::sentenceOf), for
    // ImportanceResult::masked; empty: the item's own index.
    std::vector<std::size_t> sentenceOf;
};

// One sentence ready for the loss: the model's input and what each position must predict.
struct ImportanceItem {
    std::vector<std::int32_t> ids;  // input (masked for a masked LM)
    std::vector<std::int32_t> tokenTypeIds;
    // (position whose logits are read, the id they should predict)
    std::vector<std::pair<int, std::int32_t>> targets;
};

// The rule above for one sentence: `candidates` are its non-special positions; the chosen ones
// sorted. SplitMix64 seeded with seed + sentenceIndex (mod 2^64): next() adds
// 0x9E3779B97F4A7C15 to the state and mixes it (z ^= z >> 30; z *= 0xBF58476D1CE4E5B9;
// z ^= z >> 27; z *= 0x94D049BB133111EB; z ^= z >> 31); a partial Fisher–Yates shuffle picks
// position i = 0..k−1 by swapping candidates[i] with candidates[i + next() % (m − i)].
std::vector<int> maskedPositions(const std::vector<int>& candidates, double fraction,
                                 std::uint64_t seed, std::uint64_t sentenceIndex);

ImportanceObjective importanceObjective(const model::Model& model);  // InvalidArgument: no LM head

// Tokenizes each sentence (InvalidArgument without a tokenizer) and builds its item. Sentences
// longer than the model's positions are cut to fit (the warning counts them); sentences with no
// target are left out and counted in `skipped`.
struct ImportanceCorpus {
    std::vector<ImportanceItem> items;
    std::vector<std::size_t> sentenceOf;  // [items] index of the source sentence
    std::size_t sentences = 0;            // read
    std::size_t skipped = 0;              // no target
    std::size_t truncated = 0;            // cut to the model's positions
};

ImportanceCorpus importanceCorpus(const model::Model& model,
                                  const std::vector<std::string>& sentences,
                                  const ImportanceOptions& options);

struct PruningPoint {
    double fraction = 0;
    int removed = 0;  // units ablated together
    double loss = 0;
    double accuracy = 0;
};

// A masked LM target the run used: in sentence `sentence` (0-based, counting every sentence
// read, skipped ones included), token `position` held the mask token and `originalId` is the
// token the model had to predict there.
struct ImportanceMaskedTarget {
    std::size_t sentence = 0;
    int position = 0;
    std::int32_t originalId = 0;
};

struct ImportanceResult {
    int nLayers = 0;
    int nUnits = 0;  // per layer: query heads, or key/value groups
    bool kvGroups = false;
    forward::AblationKind kind = forward::AblationKind::Zero;
    ImportanceObjective objective = ImportanceObjective::MaskedLm;
    double maskFraction = 0;
    std::uint64_t seed = 0;
    std::size_t items = 0;
    std::int64_t targets = 0;
    double cleanLoss = 0;
    double cleanAccuracy = 0;
    std::vector<double> ablatedLoss;      // [nLayers * nUnits]
    std::vector<double> deltaLoss;        // [nLayers * nUnits]
    std::vector<double> ablatedAccuracy;  // [nLayers * nUnits]
    std::vector<int> order;               // unit indices, least important first
    std::vector<PruningPoint> pruning;
    // Masked LM: every target of every item, in item then position order; empty for a causal LM
    // (every position predicts the next token).
    std::vector<ImportanceMaskedTarget> masked;

    double deltaOf(int layer, int unit) const {
        return deltaLoss[static_cast<std::size_t>(layer * nUnits + unit)];
    }
};

// Throws Cancelled when cancelled, InvalidArgument for a model without a prediction head, an
// empty corpus (no item), an item without targets or with one outside its tokens or the
// vocabulary, or a bad option (fraction outside (0, 1], pruning fraction outside [0, 1],
// sentenceOf of another length than the items).
ImportanceResult headImportance(const model::Model& model, const std::vector<ImportanceItem>& items,
                                const ImportanceOptions& options, const ShareExecutor& run);

// "masked LM, 15 % masked (seed 0)" / "causal LM, next token", for reports.
std::string describeObjective(const ImportanceResult& result);

}  // namespace attnscope::analysis
