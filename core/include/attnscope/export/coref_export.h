// Files of a coreference-scoring run (attnscope-cli coref, the app's Coreference panel):
//  * results .h5 (h5py-readable; tests/reference/coref_reference.py reads it): attributes model,
//    treebank, limit, mwt, from, attnscope_version and every CorefCounts field under its snake
//    case name (documents, sentences, windows, sentences_skipped, mentions, scored_mentions,
//    mentions_without_token, discontinuous, unclosed, unmatched, malformed_sentences);
//    `groups` (vlen UTF-8 [4]: all, pronoun, proper, nominal); `heads/correct`,
//    `heads/no_prediction`, `heads/total` int64 [layers, heads, 4] and `heads/accuracy`
//    float64 [layers, heads, 4] = correct / (total - no_prediction), NaN when nothing was
//    predicted; `baselines/names` (nearest, head_match, sieve), `baselines/correct` int64
//    [3, 4], `baselines/total` int64 [4] (the scored mentions of each group).
//  * a CSV table, one row per head and mention group (kind "head", name "LAYER-HEAD") and per
//    baseline and group (kind "baseline", name "nearest" …): kind, name, layer, head, group,
//    correct, predicted, no_prediction, total, accuracy. Heads in layer-major order.
// Written by output_file.h's rules (temporary file renamed into place); errors throw Error
// naming the file. Thread-safe (HDF5 calls are serialized).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "attnscope/analysis/coref_scoring.h"

namespace attnscope::exporting {

struct CorefRunInfo {
    std::string model;
    std::string treebank;
    std::size_t limit = 0;            // the window limit in tokens
    std::string multiword = "split";  // "split" or "share"
    std::string fromMode = "mean";    // "mean", "first", "max"
};

void writeCorefResults(const std::filesystem::path& path, const analysis::CorefAccumulator& results,
                       const CorefRunInfo& info);

void writeCorefCsv(const std::filesystem::path& path, const analysis::CorefAccumulator& results);

}  // namespace attnscope::exporting
