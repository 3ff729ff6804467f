// How the logit lens is written, the same in the app and in attnscope-cli lens (compiled into
// both): each stage's name ("embed" for the stream entering layer 0, "L3" after layer 3) and the
// CSV of every stage × position × rank (stage, after, position, rank, id, token, probability,
// target_id, target_probability, target_rank, kl_from_final). No Qt. The CSV throws the core's
// Error naming the file (export/output_file.h's rules: a failed write leaves no half file).
#pragma once

#include <string>

#include "attnscope/analysis/logit_lens.h"
#include "attnscope/model/model.h"

namespace attnscope::app {

std::string lensStageName(int stage);

// For people (the app's table and figure): the name, and for the last of `nStages` stages,
// "L5 · output" (it is the model's own prediction).
std::string lensStageLabel(int stage, int nStages);

void writeLensCsv(const std::string& path, const model::Model& m, const analysis::LogitLens& lens);

}  // namespace attnscope::app
