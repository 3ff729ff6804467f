#include "analyses/entropy/stats_command.h"

#include <iostream>

#include <CLI/CLI.hpp>

#include "attnscope/export/csv_writer.h"
#include "cli/cli_checks.h"

namespace attnscope::cli {

CLI::App* addStatsCommand(CLI::App& app, StatsArgs& args) {
    auto* stats = app.add_subcommand(
        "stats", "Per-head statistics (entropy, max weight, max |logit|) of one sentence as CSV");
    addSentenceOptions(*stats, args.sentence);
    stats->add_option("--out", args.out, "Output file (.csv)")->required();
    stats->callback([&args] { checkSentenceArgs(args.sentence); });
    return stats;
}

int runStats(const StatsArgs& args) {
    checkOutput("--out", args.out);
    const LoadedSentence s = analyzeSentence("stats", args.sentence);
    exporting::writeHeadStatsCsv(args.out, s.analysis);
    std::cerr << "attnscope-cli: wrote statistics of " << s.analysis.stats.size() << " heads to "
              << args.out << "\n";
    return 0;
}

}  // namespace attnscope::cli
