#include "analyses/patching/patch_command.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <numeric>

#include <CLI/CLI.hpp>

#include "analyses/patching/patch_tokens.h"
#include "attnscope/analysis/activation_patching.h"
#include "attnscope/base/error.h"
#include "attnscope/export/patching_export.h"
#include "attnscope/forward/prediction.h"
#include "cli/cli_checks.h"
#include "cli/sentence_input.h"
#include "cli/seq2seq_input.h"
#include "cli/token_choice.h"

namespace attnscope::cli {

namespace {

using analysis::PatchDirection;
using analysis::PatchingGrid;
using analysis::PatchSweep;

const std::array<std::pair<const char*, PatchSweep>, 5> kSweeps = {{
    {"head", PatchSweep::Head},
    {"head-position", PatchSweep::HeadPosition},
    {"resid", PatchSweep::Residual},
    {"attn-out", PatchSweep::AttnOut},
    {"mlp-out", PatchSweep::MlpOut},
}};

PatchSweep sweepOf(const std::string& name) {
    for (const auto& [text, sweep] : kSweeps) {
        if (name == text) {
            return sweep;
        }
    }
    return PatchSweep::Head;  // CLI11 checked the name
}

// One prompt as ids: a text through the model's tokenizer, or ids as given.
std::vector<std::int32_t> promptIds(const model::Model& m, const std::optional<std::string>& text,
                                    const std::vector<std::int64_t>& ids,
                                    const std::string& option) {
    if (!text) {
        return withContext(option + "-ids", [&] { return checkedTokenIds(ids); });
    }
    if (!m.tokenizer) {
        throw InvalidArgument(option + ": the model has no tokenizer; give " + option + "-ids");
    }
    std::vector<std::int32_t> out;
    withContext(option, [&] {
        for (const tokenize::Token& t : textTokens(m, *m.tokenizer, *text)) {
            out.push_back(t.id);
        }
    });
    return out;
}

std::string printed(double v, const char* format = "%8.3f") {
    std::array<char, 32> text{};
    std::snprintf(text.data(), text.size(), format, v);
    return text.data();
}

void printLayerTable(const PatchingGrid& g, const char* units) {
    std::cout << "# " << analysis::sweepName(g.sweep) << " patching ("
              << analysis::directionName(g.direction)
              << "), normalised metric; rows = layers, columns = " << units << "\n";
    std::cout << "layer";
    for (int u = 0; u < g.nUnits; ++u) {
        std::cout << printed(u, "%8.0f");
    }
    std::cout << "\n";
    for (int layer = 0; layer < g.nLayers; ++layer) {
        std::cout << printed(layer, "%5.0f");
        for (int u = 0; u < g.nUnits; ++u) {
            std::cout << printed(g.metric[g.index(layer, u)]);
        }
        std::cout << "\n";
    }
}

void printTopCells(const PatchingGrid& g, int top) {
    std::cout << "# head-position patching (" << analysis::directionName(g.direction) << "), the "
              << top << " largest |metric|: layer-head @position metric ld\n";
    std::vector<std::size_t> order(g.metric.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const auto size = [&](std::size_t i) {
        return std::isnan(g.metric[i]) ? -1.0 : std::abs(g.metric[i]);
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return size(a) > size(b); });
    const auto shown = std::min(order.size(), static_cast<std::size_t>(top));
    for (std::size_t k = 0; k < shown; ++k) {
        const std::size_t i = order[k];
        const auto position = static_cast<int>(i % static_cast<std::size_t>(g.nPositions));
        const auto head = static_cast<int>(i / static_cast<std::size_t>(g.nPositions)) % g.nUnits;
        const auto layer = static_cast<int>(i / static_cast<std::size_t>(g.nPositions * g.nUnits));
        std::cout << "  " << layer << "-" << head << " @" << position << printed(g.metric[i])
                  << printed(g.ld[i]) << "\n";
    }
}

// The metric's tokens: as asked, or the runs' own top predictions (patch_tokens.h's rule).
void chooseTokens(const model::Model& m, const PatchArgs& args, analysis::PatchingSetup& s,
                  const forward::ForwardOptions& options) {
    app::choosePatchTokens(m, s, tokenChoice(m, args.target, args.targetId, "--target"),
                           tokenChoice(m, args.distractor, args.distractorId, "--distractor"),
                           options);
}

std::vector<PatchDirection> directions(const std::string& name) {
    if (name == "both") {
        return {PatchDirection::Denoise, PatchDirection::Noise};
    }
    return {name == "noise" ? PatchDirection::Noise : PatchDirection::Denoise};
}

}  // namespace

CLI::App* addPatchCommand(CLI::App& app, PatchArgs& args) {
    auto* cmd = app.add_subcommand(
        "patch", "Activation and path patching between a clean and a corrupted prompt");
    addModelDirArgument(*cmd, args.modelDir);
    auto* clean = cmd->add_option("--clean", args.clean, "Clean prompt (text)");
    clean->excludes(addIdListOption(*cmd, "--clean-ids", args.cleanIds, "Clean prompt (ids)"));
    auto* corrupted = cmd->add_option("--corrupted", args.corrupted, "Corrupted prompt (text)");
    corrupted->excludes(
        addIdListOption(*cmd, "--corrupted-ids", args.corruptedIds, "Corrupted prompt (ids)"));
    cmd->add_option("--mask", args.mask, "Mask: default (the model's), none, causal")
        ->check(CLI::IsMember({"default", "none", "causal"}));
    cmd->add_option("--position", args.position, "Metric position (0-based; default the last)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--target", args.target, "Target token (a vocabulary piece)")
        ->excludes(cmd->add_option("--target-id", args.targetId, "Target token id"));
    cmd->add_option("--distractor", args.distractor, "Distractor token (a vocabulary piece)")
        ->excludes(cmd->add_option("--distractor-id", args.distractorId, "Distractor id"));
    cmd->add_option("--by", args.by, "Sweep: head, head-position, resid, attn-out, mlp-out")
        ->check(CLI::IsMember({"head", "head-position", "resid", "attn-out", "mlp-out"}));
    cmd->add_option("--direction", args.direction, "denoise, noise or both")
        ->check(CLI::IsMember({"denoise", "noise", "both"}))
        ->capture_default_str();
    cmd->add_option("--path", args.paths, "Path patching: SENDERS->RECEIVERS:q|k|v or ->logits");
    cmd->add_option("--out", args.out, "Write every patched run (.csv or .h5)")
        ->check(csvOrH5Output());
    cmd->callback([&args] {
        if (!args.clean && args.cleanIds.empty()) {
            throw CLI::RequiredError("--clean or --clean-ids");
        }
        if (!args.corrupted && args.corruptedIds.empty()) {
            throw CLI::RequiredError("--corrupted or --corrupted-ids");
        }
    });
    return cmd;
}

int runPatch(const PatchArgs& args) {
    checkOutput("--out", args.out);
    std::vector<analysis::PathSpec> paths;
    for (const PatchDirection d : directions(args.direction)) {
        for (const std::string& text : args.paths) {
            paths.push_back(
                withContext("--path", [&] { return analysis::parsePathSpec(text, d); }));
        }
    }
    const bool text = args.clean || args.corrupted;
    const auto model =
        loadModelWithWarnings(args.modelDir, text ? model::TokenizerLoading::Full
                                                  : model::TokenizerLoading::VocabularyOnly);
    const model::Model& m = *model;
    refuseEncoderDecoder("patch", args.modelDir, m);
    SentenceArgs sentence;
    sentence.mask = args.mask;
    const forward::ForwardOptions options = forwardOptions(sentence);
    analysis::PatchingSetup setup;
    setup.clean = promptIds(m, args.clean, args.cleanIds, "--clean");
    setup.corrupted = promptIds(m, args.corrupted, args.corruptedIds, "--corrupted");
    if (setup.clean.size() != setup.corrupted.size()) {
        throw InvalidArgument("--corrupted: " + std::to_string(setup.corrupted.size()) +
                              " tokens, but the clean prompt has " +
                              std::to_string(setup.clean.size()) + "; they need the same length");
    }
    setup.position = args.position.value_or(app::defaultPatchPosition(m, setup.clean));
    if (setup.position >= static_cast<int>(setup.clean.size())) {
        throw InvalidArgument("--position: " + std::to_string(setup.position) +
                              " is past the last of " + std::to_string(setup.clean.size()) +
                              " tokens");
    }
    chooseTokens(m, args, setup, options);
    const analysis::PatchingBase base = analysis::runPatchingBase(m, setup, options);
    exporting::PatchingRun run{args.modelDir,
                               forward::tokenPiece(m, setup.target),
                               forward::tokenPiece(m, setup.distractor),
                               &base,
                               {},
                               {}};
    std::cout << "# metric: logit('" << run.targetPiece << "', " << setup.target << ") - logit('"
              << run.distractorPiece << "', " << setup.distractor << ") at position "
              << setup.position << "; clean " << printed(base.ldClean, "%.4f") << ", corrupted "
              << printed(base.ldCorrupted, "%.4f") << "\n";
    if (base.ldClean == base.ldCorrupted) {
        std::cerr << "attnscope-cli: warning: the clean and corrupted runs give the same logit "
                     "difference; the normalised metric is undefined (nan)\n";
    }
    std::vector<std::string> by = args.by;
    if (by.empty() && args.paths.empty()) {
        by.emplace_back("head");
    }
    for (const std::string& name : by) {
        for (const PatchDirection d : directions(args.direction)) {
            run.grids.push_back(analysis::patchSweep(m, base, sweepOf(name), d));
            const PatchingGrid& g = run.grids.back();
            if (g.sweep == PatchSweep::HeadPosition) {
                printTopCells(g, 12);
            } else {
                printLayerTable(g, g.sweep == PatchSweep::Head ? "heads" : "positions");
            }
        }
    }
    for (const analysis::PathSpec& path : paths) {
        run.paths.emplace_back(path, analysis::pathPatch(m, base, path));
        std::cout << "path " << analysis::describe(path) << ": metric "
                  << printed(run.paths.back().second.metric, "%.4f") << ", ld "
                  << printed(run.paths.back().second.ld, "%.4f") << "\n";
    }
    if (!args.out.empty()) {
        isH5Path(args.out) ? exporting::writePatchingHdf5(args.out, run)
                           : exporting::writePatchingCsv(args.out, run);
        std::cerr << "attnscope-cli: wrote " << args.out << "\n";
    }
    return 0;
}

}  // namespace attnscope::cli
