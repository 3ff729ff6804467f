// Files of a patching run (attnscope-cli patch; analysis/activation_patching.h):
//  * CSV, one row per patched run: experiment ("head", "head-position", "resid", "attn-out",
//    "mlp-out" or "path"), direction ("denoise" / "noise"), layer, head, position (empty where the
//    experiment has none: "all" positions are empty), path (the path as describe() writes it,
//    else empty), ld (the patched run's logit difference), metric (normalised; empty when
//    undefined).
//  * HDF5 (h5py-readable): int64 clean_ids, corrupted_ids [n]; float64 ld_endpoints [2] (clean,
//    corrupted); per sweep a group "<direction>/<sweep>" with float64 ld and metric of shape
//    [layers, heads] (head), [layers, heads, n] (head-position) or [layers, n] (the layer
//    sweeps), NaN where undefined; "paths/spec" (strings), "paths/ld", "paths/metric"
//    (float64) when paths ran. Attributes: model, target_piece, distractor_piece,
//    attnscope_version (strings); target, distractor, position (int64).
// Written by output_file.h's rules; errors throw Error naming the file. Thread-safe.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "attnscope/analysis/activation_patching.h"

namespace attnscope::exporting {

struct PatchingRun {
    std::string model;  // the model folder, as given
    std::string targetPiece;
    std::string distractorPiece;
    const analysis::PatchingBase* base = nullptr;
    std::vector<analysis::PatchingGrid> grids;
    std::vector<std::pair<analysis::PathSpec, analysis::PathResult>> paths;
};

void writePatchingCsv(const std::filesystem::path& path, const PatchingRun& run);
void writePatchingHdf5(const std::filesystem::path& path, const PatchingRun& run);

}  // namespace attnscope::exporting
