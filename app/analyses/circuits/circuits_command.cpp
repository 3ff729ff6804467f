#include "analyses/circuits/circuits_command.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <numeric>

#include <CLI/CLI.hpp>

#include "attnscope/analysis/weight_circuits.h"
#include "attnscope/export/circuits_export.h"
#include "cli/cli_checks.h"
#include "cli/sentence_input.h"

namespace attnscope::cli {

namespace {

using analysis::WeightCircuits;

std::string number(double v, const char* format = "%9.4f") {
    std::array<char, 32> text{};
    std::snprintf(text.data(), text.size(), format, v);
    return text.data();
}

std::string headName(const WeightCircuits& w, std::size_t i) {
    return std::to_string(i / static_cast<std::size_t>(w.nHeads)) + "-" +
           std::to_string(i % static_cast<std::size_t>(w.nHeads));
}

void printHeads(const WeightCircuits& w) {
    std::cout << "head   qk_s1     qk_s2     ov_s1     ov_s2   copying  pos_prev\n";
    for (std::size_t i = 0; i < w.heads.size(); ++i) {
        const analysis::HeadWeights& h = w.heads[i];
        const auto at = [](const std::vector<double>& v, std::size_t k) {
            return k < v.size() ? v[k] : std::nan("");
        };
        std::array<char, 16> name{};
        std::snprintf(name.data(), name.size(), "%-5s", headName(w, i).c_str());
        std::cout << name.data() << number(at(h.qkSingular, 0)) << number(at(h.qkSingular, 1))
                  << number(at(h.ovSingular, 0)) << number(at(h.ovSingular, 1)) << number(h.copying)
                  << number(h.positionalPrevious) << "\n";
    }
}

void printTopPairs(const WeightCircuits& w, const char* mode, const std::vector<double>& scores,
                   int top) {
    std::vector<std::size_t> order(scores.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
    std::cout << mode << "-composition, strongest first (writer -> reader, score, x baseline):\n";
    const std::size_t heads = w.heads.size();
    for (std::size_t k = 0; k < std::min(order.size(), static_cast<std::size_t>(top)); ++k) {
        const std::size_t i = order[k];
        if (scores[i] <= 0) {
            break;
        }
        std::array<char, 64> line{};
        std::snprintf(line.data(), line.size(), "  %5s -> %-5s %7.3f %6.2fx\n",
                      headName(w, i / heads).c_str(), headName(w, i % heads).c_str(), scores[i],
                      scores[i] / w.baseline);
        std::cout << line.data();
    }
}

}  // namespace

CLI::App* addCircuitsCommand(CLI::App& app, CircuitsArgs& args) {
    auto* cmd = app.add_subcommand(
        "circuits", "Weight-space circuits: QK/OV spectra, copying, composition between heads");
    addModelDirArgument(*cmd, args.modelDir);
    cmd->add_option("--top", args.top, "Composition pairs printed per kind, strongest first")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    cmd->add_option("--out", args.out, "Write every score (.csv or .h5)")->check(csvOrH5Output());
    return cmd;
}

int runCircuits(const CircuitsArgs& args) {
    checkOutput("--out", args.out);
    const auto model =
        loadModelWithWarnings(args.modelDir, model::TokenizerLoading::VocabularyOnly);
    const WeightCircuits w = analysis::weightCircuits(*model);
    std::cout << "# " << w.nLayers << " layers x " << w.nHeads
              << " heads; composition baseline 1/sqrt(d_model) = " << number(w.baseline, "%.4f")
              << "\n";
    printHeads(w);
    printTopPairs(w, "Q", w.compQ, args.top);
    printTopPairs(w, "K", w.compK, args.top);
    printTopPairs(w, "V", w.compV, args.top);
    if (!args.out.empty()) {
        isH5Path(args.out) ? exporting::writeCircuitsHdf5(args.out, w, args.modelDir)
                           : exporting::writeCircuitsCsv(args.out, w);
        std::cerr << "attnscope-cli: wrote " << args.out << "\n";
    }
    return 0;
}

}  // namespace attnscope::cli
