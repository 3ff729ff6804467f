#include "analyses/lens/lens_command.h"

#include <array>
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "analyses/lens/lens_table.h"
#include "attnscope/analysis/logit_lens.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/prediction.h"
#include "cli/cli_checks.h"
#include "cli/token_choice.h"

namespace attnscope::cli {

namespace {

using analysis::LogitLens;

// A piece cut to `width` characters (bytes; the table is a sketch, the CSV has the pieces).
std::string cell(std::string piece, std::size_t width) {
    if (piece.size() > width) {
        piece = piece.substr(0, width - 1) + "~";
    }
    return piece;
}

void printPicture(const model::Model& m, const forward::ForwardResult& r, const LogitLens& lens) {
    constexpr std::size_t kWidth = 9;
    std::cout << "stage  ";
    for (int p = 0; p < lens.nTokens; ++p) {
        std::array<char, 32> head{};
        std::snprintf(
            head.data(), head.size(), " %-9s",
            cell(forward::tokenPiece(m, r.tokenIds[static_cast<std::size_t>(p)]), kWidth).c_str());
        std::cout << head.data();
    }
    std::cout << "\n";
    for (int s = 0; s < lens.nStages; ++s) {
        std::array<char, 32> label{};
        std::snprintf(label.data(), label.size(), "%-7s", app::lensStageName(s).c_str());
        std::cout << label.data();
        for (int p = 0; p < lens.nTokens; ++p) {
            std::array<char, 32> c{};
            std::snprintf(
                c.data(), c.size(), " %-9s",
                cell(forward::tokenPiece(m, lens.at(s, p).top.front().id), kWidth).c_str());
            std::cout << c.data();
        }
        std::cout << "\n";
    }
}

void printPosition(const model::Model& m, const LogitLens& lens, int p) {
    std::cout << "stage   target p  rank  KL(final||stage)  top\n";
    for (int s = 0; s < lens.nStages; ++s) {
        const analysis::LensCell& c = lens.at(s, p);
        std::array<char, 96> row{};
        std::snprintf(row.data(), row.size(), "%-7s %8.4f %5d %17.4f  ",
                      app::lensStageName(s).c_str(), double(c.targetProbability), c.targetRank,
                      c.klFromFinal);
        std::cout << row.data();
        for (const analysis::LensToken& t : c.top) {
            std::snprintf(row.data(), row.size(), "%s %.3f  ", forward::tokenPiece(m, t.id).c_str(),
                          double(t.probability));
            std::cout << row.data();
        }
        std::cout << "\n";
    }
}

}  // namespace

CLI::App* addLensCommand(CLI::App& app, LensArgs& args) {
    auto* cmd = app.add_subcommand(
        "lens", "Logit lens: what the model would predict after each layer, at each position");
    addSentenceOptions(*cmd, args.sentence);
    cmd->add_option("--position", args.position, "Show this position's stages in full")
        ->check(CLI::NonNegativeNumber);
    auto* target = cmd->add_option("--target", args.target,
                                   "Target token for every position (a vocabulary piece)");
    auto* targetId = cmd->add_option("--target-id", args.targetId, "Target token id");
    target->excludes(targetId);
    cmd->add_option("--top", args.top, "Tokens kept per stage and position")
        ->check(CLI::Range(1, 100))
        ->capture_default_str();
    cmd->add_option("--out", args.out, "Write every stage, position and rank (.csv)");
    cmd->callback([&args] { checkSentenceArgs(args.sentence); });
    return cmd;
}

int runLens(const LensArgs& args) {
    checkOutput("--out", args.out);
    const LoadedSentence s = analyzeSentence("lens", args.sentence, true);
    const model::Model& m = *s.model;
    const forward::ForwardResult& r = s.analysis.forward;
    if (const std::string why = analysis::lensUnsupportedReason(m); !why.empty()) {
        throw InvalidArgument(args.sentence.modelDir + ": " + why);
    }
    if (args.position && *args.position >= r.nTokens) {
        throw InvalidArgument("--position: " + std::to_string(*args.position) +
                              " is past the last of " + std::to_string(r.nTokens) + " tokens");
    }
    std::vector<std::int32_t> targets;
    if (const auto chosen = tokenChoice(m, args.target, args.targetId, "--target")) {
        targets.assign(static_cast<std::size_t>(r.nTokens), *chosen);
    }
    const LogitLens lens = analysis::logitLens(m, r, args.top, targets);
    if (args.position) {
        printPosition(m, lens, *args.position);
    } else {
        printPicture(m, r, lens);
    }
    if (!args.out.empty()) {
        app::writeLensCsv(args.out, m, lens);
        std::cerr << "attnscope-cli: wrote " << args.out << "\n";
    }
    return 0;
}

}  // namespace attnscope::cli
