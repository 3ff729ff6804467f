// Files of a head survey (attnscope-cli survey; rules in analysis/head_survey.h):
//  * a CSV table, one row per head, layer-major: layer, head, then every score in
//    surveyScoreNames()'s order under its own name. An undefined score is written as the CSV
//    writer writes NaN ("nan"), which pandas and R read back as a missing number.
//  * an .h5 file (h5py-readable): float64 /scores/<name> [layers, heads] for every score
//    (positional_offset too, so NaN can say "none"); float64 /distance [N, N] (S11, N = layers *
//    heads); float64 /mds [N, 2] and /mds_eigenvalues [2] (S12), both absent when the map could
//    not be computed, the attribute mds_error then saying why; int64 /options/special_ids,
//    /options/punct_ids, /options/period_ids (datasets rather than attributes: a vocabulary's
//    punctuation can exceed HDF5's 64 KiB attribute limit). Attributes model, corpus,
//    attnscope_version (strings), sentences, skipped (empty sentences), too_long (sentences
//    longer than the model's positions, left out before the survey), rare_top, probe_repeats,
//    probe_length (int64), probe_seed (uint64), sink_eps, positional_threshold (float64), and
//    probe_bos (int64) when a BOS was chosen.
// Written by output_file.h's rules (temporary file renamed into place); a survey whose arrays
// disagree with its shape throws InvalidArgument naming the file, write failures Error.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "attnscope/analysis/head_survey.h"

namespace attnscope::exporting {

struct SurveyRunInfo {
    std::string model;        // the model folder, as given
    std::string corpus;       // the sentence file, as given
    std::size_t tooLong = 0;  // sentences left out for the model's positions
};

void writeSurveyCsv(const std::filesystem::path& path, const analysis::HeadSurvey& survey);

void writeSurveyH5(const std::filesystem::path& path, const analysis::HeadSurvey& survey,
                   const analysis::SurveyOptions& options, const SurveyRunInfo& info);

}  // namespace attnscope::exporting
