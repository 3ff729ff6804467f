// Files of a dependency-scoring run (attnscope-cli deps, the app's Dependencies panel):
//  * results .h5 (h5py-readable): `relations` (vlen UTF-8 [R], "all" included), `counts`
//    int64 [R] words per relation, `correct` and `no_prediction` int64 [R, layers, heads, 2]
//    and `accuracy` float64 [R, layers, heads, 2] = correct / (count - no_prediction)
//    (direction 0 = dep->head, 1 = head<-dep), `baseline_offsets` int64 [6] (-3..+2),
//    `baseline_correct` int64 [R, 6], and per relation the best head (`best_layer`,
//    `best_head`, `best_direction`, `best_accuracy`, `best_no_prediction`) and the best offset
//    (`baseline_best_offset`, `baseline_accuracy`); attributes model, treebank, from_mode,
//    merge_subtypes, mwt, sentences_scored, sentences_skipped, attnscope_version.
//  * the relation table as CSV (relation, count, best head, direction, accuracy, the best
//    head's no-prediction count, baseline),
//    "all" first, then relations by count; rare relations (below the minimum count) after them
//    with rare=1.
//  * an attention dump (.h5) for independent re-scoring (tests/reference/deps_reference.py):
//    group sentences/<k> per scored sentence with attributes line, sent_id, text and datasets
//    attention float32 [layers, heads, n, n], offsets int64 [n, 2] (code points), special uint8.
// All are written by output_file.h's rules (temporary file renamed into place, devices and
// pipes written through); errors throw Error naming the
// file. Thread-safe (HDF5 calls are serialized).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "attnscope/analysis/dependency_accumulator.h"

namespace attnscope::exporting {

struct DependencyRunInfo {
    std::string model;
    std::string treebank;
    std::string fromMode;  // "mean", "first", "max"
    bool mergeSubtypes = false;
    std::string multiword = "split";  // "split" or "share" (MultiwordRule)
};

void writeDependencyResults(const std::filesystem::path& path,
                            const analysis::DependencyAccumulator& results,
                            const DependencyRunInfo& info);

// `onlyRelations` empty: every relation; otherwise those (and "all").
void writeDependencyTableCsv(const std::filesystem::path& path,
                             const analysis::DependencyAccumulator& results, std::int64_t minCount,
                             const std::vector<std::string>& onlyRelations = {});

struct DumpedSentence {
    int line = 0;
    std::string sentId;
    std::string text;
    std::vector<std::pair<std::int64_t, std::int64_t>> offsets;  // [n] code points
    std::vector<std::uint8_t> special;                           // [n]
    std::vector<float> attention;                                // [layers, heads, n, n]
    int nLayers = 0;
    int nHeads = 0;
};

void writeAttentionDump(const std::filesystem::path& path,
                        const std::vector<DumpedSentence>& sentences);

}  // namespace attnscope::exporting
