#include "analyses/coref/coref_command.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <vector>

#include <CLI/CLI.hpp>

#include "attnscope/analysis/coref_scoring.h"
#include "attnscope/analysis/partial_state.h"
#include "attnscope/base/error.h"
#include "attnscope/export/coref_export.h"
#include "attnscope/io/json_access.h"
#include "attnscope/model/model.h"
#include "cli/cli_checks.h"
#include "cli/scoring_support.h"
#include "cli/seq2seq_input.h"
#include "cli/shard_support.h"

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
    addNoBatchOption(*coref, args.noBatch);
    coref
        ->add_option("--out", args.out,
                     "results.csv (per head and group) or results.h5; with --shard, "
                     "part.part.json")
        ->required()
        ->check(csvH5OrPartOutput());
    coref->add_option("--dump", args.dump, "Also write every window's attention (.h5)");
    addShardOption(*coref, args.shard, "windows (cut from the whole corpus first)");
    coref->callback([coref, &args] { checkShardOutput(*coref, args.shard, args.out, {"--dump"}); });
    return coref;
}

namespace {

analysis::CorefScoreOptions scoreOptions(const CorefArgs& args) {
    analysis::CorefScoreOptions options;
    options.maxTokens = args.maxTokens;
    options.aggregation = aggregation(args.from);
    options.multiword =
        args.mwt == "share" ? analysis::MultiwordRule::Share : analysis::MultiwordRule::Split;
    return options;
}

// The CSV or HDF5 file, the summary and the reader's warnings: the same for one run and for
// merged shards.
int writeCorefOutputs(const CorefArgs& args, const CorefAccumulator& results, std::size_t limit,
                      const std::vector<std::string>& warnings) {
    if (results.counts.scoredMentions == 0) {
        throw Error(args.treebank + ": no mention could be scored (" +
                    std::to_string(results.counts.mentions) +
                    " mentions read; a scored mention needs an earlier mention of its entity in "
                    "its window); nothing written");
    }
    if (isH5Path(args.out)) {
        exporting::writeCorefResults(args.out, results,
                                     {args.modelDir, args.treebank, limit, args.mwt, args.from});
    } else {
        exporting::writeCorefCsv(args.out, results);
    }
    printSummary(results, limit);
    for (const std::string& warning : warnings) {
        std::cerr << "attnscope-cli: warning: " << warning << "\n";
    }
    return 0;
}

// Every option that changes the counts; merge rebuilds CorefArgs from it.
nlohmann::json partOptions(const CorefArgs& args) {
    return {{"max_tokens", args.maxTokens},
            {"from", args.from},
            {"mwt", args.mwt},
            {"strict", args.strict}};
}

void writeCorefPart(const CorefArgs& args, const model::Model& model,
                    const analysis::CorefCorpus& corpus, const exporting::Shard& shard,
                    const CorefAccumulator& results, const std::vector<std::string>& warnings) {
    exporting::PartialResult part;
    part.command = "coref";
    part.options = partOptions(args);
    part.model = exporting::modelFingerprint(model, args.modelDir);
    part.corpus = exporting::corpusFingerprint(args.treebank,
                                               static_cast<std::int64_t>(corpus.sentences.size()));
    part.shard = shard;
    part.totals = analysis::corefTotals(results.counts);
    part.totals["window_limit"] = analysis::windowLimit(model, scoreOptions(args));
    part.totals["warnings"] = warnings;
    part.state = analysis::corefState(results);
    writePart(args.out, part, static_cast<std::size_t>(results.counts.windows), "windows");
}

}  // namespace

int runCoref(const CorefArgs& args) {
    const InterruptCatcher interrupts;
    checkOutput("--out", args.out);
    checkOutput("--dump", args.dump);
    const std::optional<exporting::Shard> shard = shardOf(args.shard);
    std::cerr << "attnscope-cli: reading " << args.modelDir << " and " << args.treebank << "\n";
    const auto model = model::loadModel(args.modelDir);
    refuseEncoderDecoder("coref", args.modelDir, *model);
    text::CorefOptions reading;
    reading.strict = args.strict;
    const analysis::CorefCorpus corpus = analysis::CorefCorpus::read(args.treebank, reading);
    const analysis::CorefScoreOptions options = scoreOptions(args);
    BatchedShares batched(args.threads, !args.noBatch);  // windows side by side, products together
    analysis::CorefShares how;
    how.shares = batched.shares();
    analysis::CorefWindows windows = analysis::cutWindows(*model, corpus, options, how.cancel);
    throwIfInterrupted();
    if (shard) {  // windows are cut from the whole corpus, then split
        windows.windows = shardUnits(windows.windows, *shard);
    }
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
    const CorefAccumulator results = analysis::scoreCoref(*model, corpus, windows, options, how,
                                                          batched.executor(progress, how.cancel));
    std::vector<std::string> warnings = corpus.conlluWarnings;
    warnings.insert(warnings.end(), corpus.coref.warnings.begin(), corpus.coref.warnings.end());
    if (shard) {
        writeCorefPart(args, *model, corpus, *shard, results, warnings);
        return 0;
    }
    writeCorefOutputs(args, results, analysis::windowLimit(*model, options), warnings);
    if (!args.dump.empty()) {
        std::vector<exporting::DumpedSentence> all;
        for (const auto& part : dumps) {
            all.insert(all.end(), part.begin(), part.end());
        }
        exporting::writeAttentionDump(args.dump, all);
    }
    std::cerr << "attnscope-cli: wrote " << args.out << "\n";
    return 0;
}

int mergeCoref(const std::vector<exporting::PartialResult>& parts, const std::string& out) {
    checkMergedCsvOrH5(out, "coref");
    const exporting::PartialResult& first = parts.front();
    const io::JsonAt options = io::JsonAt{first.file}["options"];
    const io::JsonAt totals = io::JsonAt{first.file}["totals"];
    CorefArgs args;
    args.modelDir = first.modelPath();
    args.treebank = first.corpusPath();
    args.from = io::asString(io::member(first.options, options, "from"), options["from"]);
    args.mwt = io::asString(io::member(first.options, options, "mwt"), options["mwt"]);
    args.out = out;
    const auto limit = static_cast<std::size_t>(io::asInt(
        io::member(first.totals, totals, "window_limit"), totals["window_limit"], 1, 1 << 24));
    std::vector<std::string> warnings;
    const nlohmann::json& list = io::member(first.totals, totals, "warnings");
    io::expectArray(list, totals["warnings"]);
    for (std::size_t i = 0; i < list.size(); ++i) {
        warnings.push_back(io::asString(list[i], totals["warnings"][i]));
    }
    CorefAccumulator merged(first.shape().layers, first.shape().heads);
    for (const exporting::PartialResult& part : parts) {
        merged.merge(
            analysis::corefFromState(part.state, io::JsonAt{part.file}["state"], part.shape()));
    }
    // Corpus-wide counts: once, not once per shard.
    analysis::applyCorefTotals(first.totals, totals, merged.counts);
    writeCorefOutputs(args, merged, limit, warnings);
    std::cerr << "attnscope-cli: wrote " << args.out << "\n";
    return 0;
}

}  // namespace attnscope::cli
