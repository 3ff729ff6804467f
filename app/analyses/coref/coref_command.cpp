#include "analyses/coref/coref_command.h"

#include <cstdio>
#include <iostream>
#include <vector>

#include <CLI/CLI.hpp>

#include "attnscope/analysis/coref_scoring.h"
#include "attnscope/base/error.h"
#include "attnscope/export/coref_export.h"
#include "attnscope/model/model.h"
#include "cli/cli_checks.h"
#include "cli/scoring_support.h"
#include "cli/seq2seq_input.h"

namespace attnscope::cli {

namespace {

using analysis::CorefAccumulator;
using analysis::MentionGroup;

std::string percent(const analysis::Counts& c) {
    if (c.predicted() <= 0) {
        return "—";
    }
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f %%", 100.0 * c.accuracy());
    return buffer;
}

// The best head and the baselines of every mention group, and the corpus counts.
void printSummary(const CorefAccumulator& acc, std::size_t limit) {
    const analysis::CorefCounts& c = acc.counts;
    std::cout << "windows of up to " << limit << " tokens: " << c.windows << " in " << c.documents
              << " documents (" << c.sentencesSkipped << " sentences too long alone)\n"
              << "mentions " << c.mentions << ", scored " << c.scoredMentions
              << ", head word without a token " << c.mentionsWithoutToken
              << "; not mentions: " << c.discontinuous << " discontinuous parts, " << c.unclosed
              << " unclosed, " << c.unmatched << " unmatched closers, " << c.malformedSentences
              << " malformed sentences\n";
    std::cout << "group     scored  best head  accuracy (correct/predicted)   nearest  head "
                 "match  sieve\n";
    for (int g = 0; g < analysis::kMentionGroups; ++g) {
        const auto group = static_cast<MentionGroup>(g);
        const auto best = acc.bestHead(group);
        const analysis::Counts head = best ? acc.at(*best, group) : analysis::Counts{};
        const auto base = [&](analysis::CorefBaseline b) {
            return percent({acc.baselineCorrect(b, group), acc.scored(group), 0});
        };
        char line[200];
        std::snprintf(line, sizeof line, "%-9s %6lld  %-9s  %-9s (%lld/%lld)",
                      std::string(analysis::mentionGroupName(group)).c_str(),
                      static_cast<long long>(acc.scored(group)),
                      best ? best->toString().c_str() : "—", percent(head).c_str(),
                      static_cast<long long>(head.correct),
                      static_cast<long long>(head.predicted()));
        std::cout << line << "   " << base(analysis::CorefBaseline::Nearest) << "   "
                  << base(analysis::CorefBaseline::HeadMatch) << "   "
                  << base(analysis::CorefBaseline::Sieve) << "\n";
    }
}

}  // namespace

CLI::App* addCorefCommand(CLI::App& app, CorefArgs& args) {
    auto* coref = app.add_subcommand(
        "coref", "Score every head on the coreference (Entity=) annotations of a CoNLL-U treebank");
    addModelDirArgument(*coref, args.modelDir);
    coref->add_option("TREEBANK", args.treebank, "CoNLL-U file with CorefUD Entity= annotations")
        ->required();
    coref
        ->add_option("--max-tokens", args.maxTokens,
                     "Window limit in tokens, special tokens included (Clark et al.'s 128; 0 = "
                     "the model's positions; never more than those)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    coref
        ->add_option("--from", args.from,
                     "Attention from a split word: mean (paper), first (Clark's code), max")
        ->check(CLI::IsMember({"mean", "first", "max"}))
        ->capture_default_str();
    coref
        ->add_option("--mwt", args.mwt,
                     "Words of a multiword token: split (each its own tokens where possible) "
                     "or share")
        ->check(CLI::IsMember({"split", "share"}))
        ->capture_default_str();
    coref->add_flag("--strict", args.strict,
                    "Stop at the first malformed sentence or Entity= value (default: report it, "
                    "skip it, go on)");
    addThreadsOption(*coref, args.threads);
    coref->add_option("--out", args.out, "results.csv (per head and group) or results.h5")
        ->required()
        ->check(csvOrH5Output());
    coref->add_option("--dump", args.dump, "Also write every window's attention (.h5)");
    return coref;
}

int runCoref(const CorefArgs& args) {
    const InterruptCatcher interrupts;
    checkOutput("--out", args.out);
    checkOutput("--dump", args.dump);
    std::cerr << "attnscope-cli: reading " << args.modelDir << " and " << args.treebank << "\n";
    const auto model = model::loadModel(args.modelDir);
    refuseEncoderDecoder("coref", args.modelDir, *model);
    text::CorefOptions reading;
    reading.strict = args.strict;
    const analysis::CorefCorpus corpus = analysis::CorefCorpus::read(args.treebank, reading);
    analysis::CorefScoreOptions options;
    options.maxTokens = args.maxTokens;
    options.aggregation = aggregation(args.from);
    options.multiword =
        args.mwt == "share" ? analysis::MultiwordRule::Share : analysis::MultiwordRule::Split;
    analysis::CorefShares how;
    how.shares = static_cast<std::size_t>(args.threads);
    const analysis::CorefWindows windows =
        analysis::cutWindows(*model, corpus, options, how.cancel);
    throwIfInterrupted();
    ScoringProgress progress;
    progress.total = windows.windows.size();
    progress.unit = "windows";
    how.windowDone = [&progress] { ++progress.done; };
    std::vector<std::vector<exporting::DumpedSentence>> dumps(how.shares);
    if (!args.dump.empty()) {
        how.scored = [&](std::size_t share, std::size_t window, const std::string& text,
                         const auto& tokens, const auto& result) {
            const analysis::CorefWindow& w = windows.windows[window];
            const auto& first = corpus.sentences[static_cast<std::size_t>(w.firstSentence)];
            const std::string id = corpus.coref.documents[static_cast<std::size_t>(w.document)].id;
            dumps[share].push_back(
                dumpedInput(first.line, id + "#" + std::to_string(window), text, tokens, result));
        };
    }
    oneComputeThreadPerShare(how.shares);  // parallel over windows, not inside products
    const CorefAccumulator results = analysis::scoreCoref(
        *model, corpus, windows, options, how, threadsWithProgress(progress, how.cancel));
    if (results.counts.scoredMentions == 0) {
        throw Error(args.treebank + ": no mention could be scored (" +
                    std::to_string(results.counts.mentions) +
                    " mentions read; a scored mention needs an earlier mention of its entity in "
                    "its window); nothing written");
    }
    const std::size_t limit = analysis::windowLimit(*model, options);
    if (isH5Path(args.out)) {
        exporting::writeCorefResults(args.out, results,
                                     {args.modelDir, args.treebank, limit, args.mwt, args.from});
    } else {
        exporting::writeCorefCsv(args.out, results);
    }
    if (!args.dump.empty()) {
        std::vector<exporting::DumpedSentence> all;
        for (const auto& part : dumps) {
            all.insert(all.end(), part.begin(), part.end());
        }
        exporting::writeAttentionDump(args.dump, all);
    }
    printSummary(results, limit);
    for (const auto* warnings : {&corpus.conlluWarnings, &corpus.coref.warnings}) {
        for (const std::string& warning : *warnings) {
            std::cerr << "attnscope-cli: warning: " << warning << "\n";
        }
    }
    std::cerr << "attnscope-cli: wrote " << args.out << "\n";
    return 0;
}

}  // namespace attnscope::cli
