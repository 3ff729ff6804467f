// Files of the weight-space circuit scores (attnscope-cli circuits; analysis/weight_circuits.h):
//  * CSV in long form, one row per number: score ("qk_singular", "ov_singular", "copying",
//    "positional_previous", "comp_q", "comp_k", "comp_v"), layer, head, index (the singular
//    value's rank from 1; else empty), layer2, head2 (the reading head of a composition score;
//    else empty), value. Composition rows only where the reader is in a later layer; undefined
//    scores (NaN) are left out.
//  * HDF5 (h5py-readable): float64 qk_singular [layers, heads, d_head], ov_singular
//    [layers, heads, d_head_v], copying and positional_previous [layers, heads] (NaN where
//    undefined), comp_q, comp_k, comp_v [layers * heads, layers * heads] (row: the writing head);
//    attributes model, attnscope_version (strings), baseline (float64).
// Written by output_file.h's rules; errors throw Error naming the file. Thread-safe.
#pragma once

#include <filesystem>
#include <string>

#include "attnscope/analysis/weight_circuits.h"

namespace attnscope::exporting {

void writeCircuitsCsv(const std::filesystem::path& path, const analysis::WeightCircuits& w);
void writeCircuitsHdf5(const std::filesystem::path& path, const analysis::WeightCircuits& w,
                       const std::string& model);

}  // namespace attnscope::exporting
