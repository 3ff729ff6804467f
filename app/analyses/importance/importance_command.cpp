#include "analyses/importance/importance_command.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <vector>

#include <CLI/CLI.hpp>

#include "attnscope/analysis/head_importance.h"
#include "attnscope/base/error.h"
#include "attnscope/export/importance_export.h"
#include "attnscope/model/model.h"
#include "attnscope/text/sentence_file.h"
#include "cli/cli_checks.h"
#include "cli/scoring_support.h"
#include "cli/seq2seq_input.h"

namespace attnscope::cli {

namespace {

using analysis::ImportanceResult;

constexpr int kListed = 10;  // most and least important units printed, at most

forward::AblationKind kindOf(const std::string& name) {
    return name == "mean"   ? forward::AblationKind::Mean
           : name == "sink" ? forward::AblationKind::Sink
                            : forward::AblationKind::Zero;
}

// "3-7" for a query head, "3-g1" for a key/value group (parseAblationList's spelling).
std::string unitLabel(const ImportanceResult& r, int unit) {
    const int layer = unit / r.nUnits;
    const int index = unit % r.nUnits;
    return std::to_string(layer) + (r.kvGroups ? "-g" : "-") + std::to_string(index);
}

void printUnit(const ImportanceResult& r, int unit) {
    const auto u = static_cast<std::size_t>(unit);
    char line[160];
    std::snprintf(line, sizeof line, "  %-8s %+10.4f  loss %.4f  accuracy %5.1f %%\n",
                  unitLabel(r, unit).c_str(), r.deltaLoss[u], r.ablatedLoss[u],
                  100.0 * r.ablatedAccuracy[u]);
    std::cout << line;
}

void printSummary(const ImportanceResult& r, const analysis::ImportanceCorpus& corpus,
                  const ImportanceArgs& args) {
    const std::string units = exporting::unitName(r) + "s";
    std::cout << "objective: " << analysis::describeObjective(r) << "; ablation "
              << forward::ablationKindName(r.kind) << " per " << exporting::unitName(r) << "\n"
              << "corpus: " << args.corpus << ": " << corpus.sentences << " sentences, " << r.items
              << " scored, " << corpus.skipped << " without a target, " << corpus.truncated
              << " cut to the model's positions; " << r.targets << " targets\n";
    char line[160];
    std::snprintf(line, sizeof line, "clean loss %.4f, accuracy %.1f %%\n", r.cleanLoss,
                  100.0 * r.cleanAccuracy);
    std::cout << line;
    const int n = static_cast<int>(r.order.size());
    // Two lists that overlap say nothing more: a small model gets half its units in each.
    const int listed = std::min(kListed, std::max(1, n / 2));
    std::cout << "most important " << units << " (delta loss when ablated alone):\n";
    for (int k = 0; k < listed; ++k) {
        printUnit(r, r.order[static_cast<std::size_t>(n - 1 - k)]);
    }
    std::cout << "least important " << units << ":\n";
    for (int k = 0; k < listed; ++k) {
        printUnit(r, r.order[static_cast<std::size_t>(k)]);
    }
    std::cout << "pruning curve (least important first, ablated together):\n"
              << "  fraction  removed      loss  accuracy\n";
    for (const analysis::PruningPoint& p : r.pruning) {
        std::snprintf(line, sizeof line, "  %8.2f  %7d  %8.4f  %6.1f %%\n", p.fraction, p.removed,
                      p.loss, 100.0 * p.accuracy);
        std::cout << line;
    }
}

std::vector<std::string> readCorpus(const ImportanceArgs& args) {
    std::vector<std::string> sentences = text::readSentences(args.corpus);
    if (args.maxSentences && sentences.size() > static_cast<std::size_t>(*args.maxSentences)) {
        sentences.resize(static_cast<std::size_t>(*args.maxSentences));
    }
    return sentences;
}

}  // namespace

CLI::App* addImportanceCommand(CLI::App& app, ImportanceArgs& args) {
    auto* cmd = app.add_subcommand(
        "importance", "Loss change of ablating each head alone on a corpus, and the pruning curve");
    addModelDirArgument(*cmd, args.modelDir);
    addCorpusArgument(*cmd, args.corpus);
    cmd->add_option("--out", args.out,
                    "importance.csv (table) or importance.h5 (arrays); a masked LM's file also "
                    "lists the masked positions the loss used")
        ->required()
        ->check(csvOrH5Output());
    cmd->add_option("--kind", args.kind,
                    "zero (output 0), mean (its mean output on this corpus), sink (attend to the "
                    "first token)")
        ->check(CLI::IsMember({"zero", "mean", "sink"}))
        ->capture_default_str();
    cmd->add_flag("--kv-group", args.kvGroup,
                  "Ablate key/value groups (every query head sharing one) instead of heads");
    cmd->add_option("--max-sentences", args.maxSentences, "Use only the first N sentences")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--mask-fraction", args.maskFraction,
                    "Masked LM: share of each sentence's tokens masked, in (0, 1]")
        ->check(finiteRange(0.0, 1.0))
        ->check(CLI::Validator(
            [](const std::string& value) {
                double v = 0;
                return CLI::detail::lexical_cast(value, v) && v > 0.0
                           ? std::string()
                           : std::string("the mask fraction must be above 0");
            },
            "POSITIVE"))
        ->capture_default_str();
    cmd->add_option("--seed", args.seed, "Masked LM: seed of the masking")
        ->check(wholeNumber64())
        ->capture_default_str();
    addThreadsOption(*cmd, args.threads);
    addNoBatchOption(*cmd, args.noBatch);
    return cmd;
}

int runImportance(const ImportanceArgs& args) {
    const InterruptCatcher interrupts;
    checkOutput("--out", args.out);  // before any work (issue 30)
    const auto model = model::loadModel(args.modelDir);
    refuseEncoderDecoder("importance", args.modelDir, *model);
    throwIfInterrupted();
    analysis::ImportanceOptions options;
    options.maskFraction = args.maskFraction;
    options.seed = args.seed;
    options.kind = kindOf(args.kind);
    options.kvGroups = args.kvGroup;
    const analysis::ImportanceCorpus corpus =
        analysis::importanceCorpus(*model, readCorpus(args), options);
    options.sentenceOf = corpus.sentenceOf;  // the file lists the masked targets by sentence
    throwIfInterrupted();
    if (corpus.items.empty()) {
        throw Error(args.corpus + ": no sentence has a target (" +
                    std::to_string(corpus.sentences) + " read, " + std::to_string(corpus.skipped) +
                    " empty or too short); nothing written");
    }
    std::cerr << "attnscope-cli: importance of " << model->spec.nLayers << " layers on "
              << corpus.items.size() << " sentences; Ctrl+C stops it\n";
    ScoringProgress progress;
    options.progress = percentProgress(progress);
    // Sentences side by side, their products together (--no-batch: each alone).
    BatchedShares batched(args.threads, !args.noBatch);
    options.shares = batched.shares();
    const ImportanceResult result = analysis::headImportance(
        *model, corpus.items, options, batched.executor(progress, options.cancel));
    throwIfInterrupted();
    if (isH5Path(args.out)) {
        exporting::writeImportanceH5(args.out, result, {args.modelDir, args.corpus});
    } else {
        exporting::writeImportanceCsv(args.out, result);
    }
    printSummary(result, corpus, args);
    std::cerr << "attnscope-cli: wrote " << args.out << "\n";
    return 0;
}

}  // namespace attnscope::cli
