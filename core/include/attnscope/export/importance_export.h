// Files of a head-importance run (attnscope-cli importance, the app's Importance view):
//  * a CSV table with one header for three kinds of rows, `record` saying which:
//      record, layer, head, group, delta_loss, ablated_loss, ablated_accuracy, rank,
//      fraction, removed, loss, accuracy, sentence, position, target_id
//    - "unit": one per query head (`head` filled, `group` empty) or key/value group (`group`
//      filled, `head` empty), layer-major; delta_loss, ablated_loss, ablated_accuracy and rank
//      (1 = the largest delta_loss, the most important; the pruning order read backwards);
//      the pruning columns empty.
//    - "pruning": one per point of the curve: fraction, removed (units ablated together), loss
//      and accuracy; the unit columns empty.
//    - "masked" (masked LM only): one per target the loss was measured on: sentence (0-based,
//      counting every sentence read), position (the token that held the mask token) and
//      target_id (the original token); every other column empty.
//  * an .h5 file (h5py-readable): float64 `delta_loss`, `ablated_loss`, `ablated_accuracy`
//    [layers, units]; int64 `order` [layers * units] (unit index layer * units + unit, least
//    important first); `pruning/fraction`, `pruning/loss`, `pruning/accuracy` float64 and
//    `pruning/removed` int64 [points]; `masked/sentence`, `masked/position`,
//    `masked/target_id` int64 [targets] (masked LM only); attributes model, corpus, objective
//    ("masked LM" /
//    "causal LM"), kind ("zero", "mean", "sink"), units ("head" / "kv group"),
//    attnscope_version (strings), seed (uint64), mask_fraction, clean_loss, clean_accuracy
//    (float64), items, targets (int64).
// Written by output_file.h's rules (temporary file renamed into place); errors throw Error
// naming the file. Thread-safe (HDF5 calls are serialized).
#pragma once

#include <filesystem>
#include <string>

#include "attnscope/analysis/head_importance.h"

namespace attnscope::exporting {

struct ImportanceRunInfo {
    std::string model;   // the model folder, as given
    std::string corpus;  // the sentence file, as given
};

// "masked LM" / "causal LM"; "head" / "kv group": the names both files use.
std::string objectiveName(analysis::ImportanceObjective objective);
std::string unitName(const analysis::ImportanceResult& result);

void writeImportanceCsv(const std::filesystem::path& path,
                        const analysis::ImportanceResult& result);

void writeImportanceH5(const std::filesystem::path& path, const analysis::ImportanceResult& result,
                       const ImportanceRunInfo& info);

}  // namespace attnscope::exporting
