// How the corpus analyses write a head and a count of right guesses in their tables, tool tips
// and summaries, the same in every panel: "3-7", "45.5 %", "; 3 without a prediction".
#pragma once

#include <QString>

#include "attnscope/analysis/dependency_accumulator.h"
#include "attnscope/base/head_id.h"

namespace attnscope::app::corpus {

// "L-H", 0-based.
QString headText(HeadId head);
// The accuracy as a percentage with one decimal, "–" when there were no words.
QString percentText(const analysis::Counts& c);
// "; 3 without a prediction", or empty when the head predicted every word.
QString noPredictionText(const analysis::Counts& c);

}  // namespace attnscope::app::corpus
