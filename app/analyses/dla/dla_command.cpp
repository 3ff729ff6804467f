#include "analyses/dla/dla_command.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "analyses/dla/dla_terms.h"
#include "attnscope/analysis/logit_attribution.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/prediction.h"
#include "cli/cli_checks.h"
#include "cli/token_choice.h"

namespace attnscope::cli {

namespace {

using analysis::DlaTerm;

void printTerms(const analysis::LogitAttribution& a, int top) {
    std::vector<DlaTerm> sorted = a.terms;
    std::stable_sort(sorted.begin(), sorted.end(), [](const DlaTerm& x, const DlaTerm& y) {
        return std::abs(x.value) > std::abs(y.value);
    });
    std::cout << "term              value\n";
    const auto shown = std::min(sorted.size(), static_cast<std::size_t>(top));
    for (std::size_t i = 0; i < shown; ++i) {
        std::array<char, 96> row{};
        std::snprintf(row.data(), row.size(), "%-14s %9.4f\n", sorted[i].name().c_str(),
                      sorted[i].value);
        std::cout << row.data();
    }
    if (shown < sorted.size()) {
        std::cout << "(" << sorted.size() - shown << " smaller terms; --out writes all)\n";
    }
}

}  // namespace

CLI::App* addDlaCommand(CLI::App& app, DlaArgs& args) {
    auto* cmd = app.add_subcommand(
        "dla", "Direct logit attribution: which heads, MLPs and embeddings write a logit");
    addSentenceOptions(*cmd, args.sentence);
    cmd->add_option("--position", args.position, "Token position (0-based; default the last)")
        ->check(CLI::NonNegativeNumber);
    auto* target = cmd->add_option("--target", args.target, "Target token (a vocabulary piece)");
    auto* targetId = cmd->add_option("--target-id", args.targetId, "Target token id");
    target->excludes(targetId);
    auto* distractor = cmd->add_option("--distractor", args.distractor,
                                       "Distractor token: attribute target minus distractor");
    auto* distractorId = cmd->add_option("--distractor-id", args.distractorId, "Distractor id");
    distractor->excludes(distractorId);
    cmd->add_option("--top", args.top, "Terms printed, largest first")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    cmd->add_option("--out", args.out, "Write every term (.csv)");
    cmd->callback([&args] { checkSentenceArgs(args.sentence); });
    return cmd;
}

int runDla(const DlaArgs& args) {
    checkOutput("--out", args.out);
    const LoadedSentence s = analyzeSentence("dla", args.sentence, true);
    const model::Model& m = *s.model;
    const forward::ForwardResult& r = s.analysis.forward;
    const int position = args.position.value_or(r.nTokens - 1);
    if (position >= r.nTokens) {
        throw InvalidArgument("--position: " + std::to_string(position) + " is past the last of " +
                              std::to_string(r.nTokens) + " tokens");
    }
    if (const std::string why = analysis::dlaUnsupportedReason(m); !why.empty()) {
        throw InvalidArgument(args.sentence.modelDir + ": " + why);
    }
    std::int32_t target = 0;
    if (const auto chosen = tokenChoice(m, args.target, args.targetId, "--target")) {
        target = *chosen;
    } else {
        target = forward::topPredictions(m, r, position, 1).front().id;
    }
    const auto distractor = tokenChoice(m, args.distractor, args.distractorId, "--distractor");
    const auto a = analysis::directLogitAttribution(m, r, position, target, distractor);
    analysis::checkSum(a);
    std::cout << "# position " << position << " ('" << forward::tokenPiece(m, r.tokenIds[position])
              << "'), logit of '" << forward::tokenPiece(m, target) << "' (" << target << ")";
    if (distractor) {
        std::cout << " minus '" << forward::tokenPiece(m, *distractor) << "' (" << *distractor
                  << ")";
    }
    std::cout << " = " << a.logit << "; " << a.terms.size() << " terms add up to "
              << a.logit - a.residual << "\n";
    printTerms(a, args.top);
    if (!args.out.empty()) {
        app::writeDlaCsv(args.out, a);
        std::cerr << "attnscope-cli: wrote " << args.out << "\n";
    }
    return 0;
}

}  // namespace attnscope::cli
