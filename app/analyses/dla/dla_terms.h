// How direct logit attribution's terms are written, the same in the app and in attnscope-cli dla
// (compiled into both): each kind's name and the CSV of every term (term, kind, layer, head,
// value; layer and head empty where a term has none). No Qt. The CSV throws the core's Error
// naming the file (export/output_file.h's rules: a failed write leaves no half file).
#pragma once

#include <string>

#include "attnscope/analysis/logit_attribution.h"

namespace attnscope::app {

// "embedding", "positions", "head", "output bias", "mlp", "final norm bias", "unembedding bias".
std::string dlaKindName(analysis::DlaTermKind kind);

void writeDlaCsv(const std::string& path, const analysis::LogitAttribution& a);

}  // namespace attnscope::app
