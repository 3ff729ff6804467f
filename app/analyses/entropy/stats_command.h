// attnscope-cli stats: per-head statistics of one sentence as CSV (one row per head; columns
// in core/include/attnscope/export/csv_writer.h). Returns the exit code; data errors throw
// attnscope::Error (exit 1). No Qt.
#pragma once

#include <string>

#include "cli/sentence_input.h"

namespace CLI {
class App;
}

namespace attnscope::cli {

struct StatsArgs {
    SentenceArgs sentence;
    std::string out;
};

CLI::App* addStatsCommand(CLI::App& app, StatsArgs& args);

int runStats(const StatsArgs& args);

}  // namespace attnscope::cli
