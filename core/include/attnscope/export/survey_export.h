// Files of a head survey (attnscope-cli survey; rules in analysis/head_survey.h):
//  * a CSV table, one row per head, layer-major: layer, head, then every score in
//    surveyScoreNames()'s order under its own name. An undefined score is written as the CSV
//    writer writes NaN ("nan"), which pandas and R read back as a missing number. When the probe
//    ran, its sequences go beside it in surveyProbeCsvPath (survey.csv -> survey.probe.csv):
//    columns repeat, position, id, one row per token.
//  * an .h5 file (h5py-readable): float64 /scores/<name> [layers, heads] for every score
//    (positional_offset too, so NaN can say "none"); float64 /distance [N, N] (S11, N = layers *
//    heads); float64 /mds [N, 2] and /mds_eigenvalues [2] (S12), both absent when the map could
//    not be computed, the attribute mds_error then saying why; int64 /options/special_ids,
//    /options/punct_ids, /options/period_ids (datasets rather than attributes: a vocabulary's
//    punctuation can exceed HDF5's 64 KiB attribute limit). Attributes model, corpus,
//    attnscope_version (strings), sentences, skipped (empty sentences), too_long (sentences
//    longer than the model's positions, left out before the survey), rare_top, probe_repeats,
//    probe_length (int64), probe_seed (uint64), sink_eps, positional_threshold (float64), and
//    probe_bos (int64) when a BOS was chosen. Each /scores/<name> has a string attribute unit
//    (surveyScoreUnit: sink_rate is a fraction of sentences). int64 /probe/tokens [repeats,
//    2N + 1] holds the probe's sequences (absent without a probe), its attribute rule the draw.
//    int64 attribute rare_sentences (S10's eligible sentences) and, when rare_top1/2 are
//    undefined for every head, the string attribute rare_error saying why.
// With SurveyExtras: the CSV gains, after the scores, `labels` (the head's tags, strongest first,
// separated by spaces) and for a treebank `dep_relation`, `dep_accuracy`, `dep_baseline`,
// `dep_baseline_offset` (the head's best relation, head_labels.h's bestRelations); the .h5 gains
// string /labels/tags [N] (space-separated, as in the CSV) and for a treebank /dependency/relation
// (strings [N], "" for none), float64 /dependency/accuracy, /dependency/baseline and int64
// /dependency/baseline_offset [layers, heads].
// Written by output_file.h's rules (temporary file renamed into place); a survey whose arrays
// disagree with its shape throws InvalidArgument naming the file, write failures Error.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "attnscope/analysis/head_labels.h"
#include "attnscope/analysis/head_survey.h"

namespace attnscope::exporting {

struct SurveyRunInfo {
    std::string model;        // the model folder, as given
    std::string corpus;       // the sentence file, as given
    std::size_t tooLong = 0;  // sentences left out for the model's positions
};

// What a survey file holds beyond the scores; each part is left out when empty.
struct SurveyExtras {
    std::vector<std::vector<analysis::HeadLabel>> labels;  // [N] per head, strongest first
    std::vector<analysis::BestRelation> bestRelations;     // [N] treebank corpora only
};

void writeSurveyCsv(const std::filesystem::path& path, const analysis::HeadSurvey& survey,
                    const SurveyExtras& extras = {});

// Where writeSurveyCsv puts the probe's sequences: the table's path with ".probe.csv".
std::filesystem::path surveyProbeCsvPath(const std::filesystem::path& csv);

void writeSurveyH5(const std::filesystem::path& path, const analysis::HeadSurvey& survey,
                   const analysis::SurveyOptions& options, const SurveyRunInfo& info,
                   const SurveyExtras& extras = {});

}  // namespace attnscope::exporting
