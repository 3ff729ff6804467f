// Files of a saturation run (attnscope-cli saturation; analysis/saturation.h), per head, for
// the model as it is and, when a what-if was asked for, with it:
//  * CSV, one row per setting × head: setting ("model" / "what-if"), layer, head, rows,
//    mean_entropy, max_abs_unnormed (empty when not recorded), max_abs_scaled, max_abs_logit,
//    mean_row_max_abs_logit, one_hot_share, one_hot_rows.
//  * HDF5 (h5py-readable), a group per setting, "model" and "what_if", each with float32
//    [layers, heads] mean_entropy, max_abs_unnormed (NaN when not recorded), max_abs_scaled,
//    max_abs_logit, mean_row_max_abs_logit, one_hot_share and int64 rows, one_hot_rows; for
//    one sentence also its rows, float32 [layers, heads, n]: entropy, row_max_weight,
//    row_max_abs_unnormed, row_max_abs_scaled, row_max_abs_logit. Attributes: model, input,
//    what_if (as attention_what_if.h's describe writes it), attnscope_version (strings);
//    sentences (int64), one_hot_weight (float64).
// Written by output_file.h's rules; errors throw Error naming the file. Thread-safe.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "attnscope/analysis/saturation.h"

namespace attnscope::exporting {

struct SaturationSetting {
    std::vector<analysis::HeadSaturation> heads;  // [layer][head] order
    // One sentence: its pass, whose per-row arrays the HDF5 file keeps; null for a corpus.
    const forward::ForwardResult* pass = nullptr;
};

struct SaturationRun {
    std::string model;   // the model folder, as given
    std::string input;   // the sentence file, or "--text" / "--token-ids"
    std::string whatIf;  // "none" without one
    int nLayers = 0;
    int nHeads = 0;
    std::int64_t sentences = 0;
    SaturationSetting asIs;
    SaturationSetting changed;  // empty heads without a what-if
};

void writeSaturationCsv(const std::filesystem::path& path, const SaturationRun& run);

void writeSaturationHdf5(const std::filesystem::path& path, const SaturationRun& run);

}  // namespace attnscope::exporting
