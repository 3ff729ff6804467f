// attnscope-cli attribution (issue 19): one sentence's attribution maps — norm-based, rollout,
// flow, ALTI, value zeroing, and the raw attention always — computed from one forward pass
// (analysis/attribution.h) and written to one HDF5 file whose datasets carry the names of
// tests/reference/attribution_reference.py's output (export/attribution_export.h). Prints a
// short summary on stdout (methods, tokens, ALTI's per-layer reconstruction error, the file) and
// the slow methods' progress on stderr. An unknown method is a usage error (exit 2); flow on
// more than kFlowMaxTokens tokens, a model that cannot be read or a failed check is a data error
// (exit 1); Ctrl+C stops at the next layer (or key) and writes nothing (exit 130).
#pragma once

#include <string>
#include <vector>

#include "cli/sentence_input.h"

namespace CLI {
class App;
}

namespace attnscope::cli {

struct AttributionArgs {
    SentenceArgs sentence;
    std::vector<std::string> methods;  // --method: names of analysis::parseAttributionMethod, "all"
    std::string out;
};

CLI::App* addAttributionCommand(CLI::App& app, AttributionArgs& args);

int runAttribution(const AttributionArgs& args);

}  // namespace attnscope::cli
