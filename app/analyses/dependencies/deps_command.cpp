#include "analyses/dependencies/deps_command.h"

#include <algorithm>
#include <iostream>
#include <utility>

#include <CLI/CLI.hpp>

#include "attnscope/analysis/treebank_scoring.h"
#include "attnscope/base/error.h"
#include "attnscope/export/dependency_export.h"
#include "attnscope/text/conllu.h"
#include "cli/cli_checks.h"
#include "cli/scoring_support.h"
#include "cli/seq2seq_input.h"

namespace attnscope::cli {

namespace {

using analysis::DependencyAccumulator;

exporting::DumpedSentence dumped(const text::Sentence& s,
                                 const std::vector<tokenize::Token>& tokens,
                                 const forward::ForwardResult& r) {
    std::string text;
    analysis::goldSentence(s, &text);
    return dumpedInput(s.line, s.sentId, std::move(text), tokens, r);
}

int writeDepsOutputs(const DepsArgs& args, const DependencyAccumulator& results,
                     const text::ConlluResult& treebank,
                     const std::vector<std::vector<exporting::DumpedSentence>>& dumps) {
    if (results.sentencesScored() == 0) {
        std::string why;
        for (const auto& [reason, count] : results.skipReasons()) {
            why += (why.empty() ? "" : "; ") + std::to_string(count) + " " + reason;
        }
        throw Error(args.treebank + ": no sentence could be scored (" + why + "); nothing written");
    }
    if (isH5Path(args.out)) {
        exporting::writeDependencyResults(
            args.out, results,
            {args.modelDir, args.treebank, args.from, args.mergeSubtypes, args.mwt});
    } else {
        exporting::writeDependencyTableCsv(args.out, results, args.minCount, args.relations);
    }
    if (!args.dump.empty()) {
        std::vector<exporting::DumpedSentence> all;
        for (const auto& part : dumps) {
            all.insert(all.end(), part.begin(), part.end());
        }
        exporting::writeAttentionDump(args.dump, all);
    }
    std::cerr << "attnscope-cli: scored " << results.sentencesScored() << " sentences, skipped "
              << results.sentencesSkipped() + treebank.skipped << "\n";
    for (const auto& [reason, count] : results.skipReasons()) {
        std::cerr << "  " << count << " " << reason << "\n";
    }
    if (treebank.skipped > 0) {
        std::cerr << "  " << treebank.skipped << " malformed in the treebank, e.g. "
                  << treebank.warnings.front() << "\n";
    }
    std::cerr << "attnscope-cli: wrote " << args.out << "\n";
    return 0;
}

}  // namespace

CLI::App* addDepsCommand(CLI::App& app, DepsArgs& args) {
    auto* deps = app.add_subcommand(
        "deps", "Score every head against gold dependency relations of a CoNLL-U treebank");
    addModelDirArgument(*deps, args.modelDir);
    deps->add_option("TREEBANK", args.treebank, "CoNLL-U file")->required();
    deps->add_option("--relations", args.relations,
                     "Only these relations in the table, e.g. det,nsubj")
        ->delimiter(',');
    deps->add_flag("--merge-subtypes", args.mergeSubtypes, "Count nsubj:pass as nsubj, etc.");
    deps->add_flag("--strict", args.strict,
                   "Stop at the first malformed sentence (default: report it, skip it, go on)");
    deps->add_option("--from", args.from,
                     "Attention from a split word: mean (paper), first (Clark's code), max")
        ->check(CLI::IsMember({"mean", "first", "max"}))
        ->capture_default_str();
    deps->add_option("--mwt", args.mwt,
                     "Words of a multiword token (can't = ca + n't): split (each its own tokens "
                     "where the forms spell the token and the tokens allow it) or share (all "
                     "the token's tokens)")
        ->check(CLI::IsMember({"split", "share"}))
        ->capture_default_str();
    deps->add_option("--max-sentences", args.maxSentences, "Score only the first N sentences")
        ->check(CLI::PositiveNumber);
    addThreadsOption(*deps, args.threads);
    deps->add_option("--min-count", args.minCount, "Relations rarer than this are listed apart")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    deps->add_option("--out", args.out, "results.csv (relation table) or results.h5 (all counts)")
        ->required()
        ->check(csvOrH5Output());
    deps->add_option("--dump", args.dump, "Also write every scored sentence's attention (.h5)");
    return deps;
}

int runDeps(const DepsArgs& args) {
    const InterruptCatcher interrupts;
    checkOutput("--out", args.out);
    checkOutput("--dump", args.dump);
    const auto model = model::loadModel(args.modelDir);
    refuseEncoderDecoder("deps", args.modelDir, *model);
    text::ConlluOptions reading;
    reading.strict = args.strict;
    text::ConlluResult treebank = text::readConllu(args.treebank, reading);
    text::requireSentences(treebank, args.treebank);
    if (args.maxSentences &&
        treebank.sentences.size() > static_cast<std::size_t>(*args.maxSentences)) {
        treebank.sentences.resize(static_cast<std::size_t>(*args.maxSentences));
    }
    const analysis::ScoreOptions score{
        aggregation(args.from), args.mergeSubtypes,
        args.mwt == "share" ? analysis::MultiwordRule::Share : analysis::MultiwordRule::Split};
    analysis::TreebankShares how;
    how.shares = static_cast<std::size_t>(args.threads);
    std::vector<std::vector<exporting::DumpedSentence>> dumps(how.shares);
    ScoringProgress progress;
    progress.total = treebank.sentences.size();
    progress.unit = "sentences";
    how.sentenceDone = [&progress] { ++progress.done; };
    if (!args.dump.empty()) {
        how.scored = [&dumps](std::size_t share, const auto& s, const auto& tokens, const auto& r) {
            dumps[share].push_back(dumped(s, tokens, r));
        };
    }
    oneComputeThreadPerShare(how.shares);  // parallel over sentences, not inside products
    const DependencyAccumulator results = analysis::scoreTreebank(
        *model, treebank.sentences, score, how, threadsWithProgress(progress, how.cancel));
    return writeDepsOutputs(args, results, treebank, dumps);
}

}  // namespace attnscope::cli
