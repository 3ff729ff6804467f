#include "analyses/dependencies/deps_command.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <utility>

#include <CLI/CLI.hpp>

#include "attnscope/analysis/partial_state.h"
#include "attnscope/analysis/treebank_scoring.h"
#include "attnscope/base/error.h"
#include "attnscope/export/dependency_export.h"
#include "attnscope/io/json_access.h"
#include "attnscope/text/conllu.h"
#include "cli/cli_checks.h"
#include "cli/scoring_support.h"
#include "cli/seq2seq_input.h"
#include "cli/shard_support.h"

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

// Sentences readConllu left out as malformed: corpus-wide, the same in every shard.
struct Malformed {
    std::int64_t count = 0;
    std::string example;  // the first one's warning
};

int writeDepsOutputs(const DepsArgs& args, const DependencyAccumulator& results,
                     const Malformed& malformed,
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
              << results.sentencesSkipped() + malformed.count << "\n";
    for (const auto& [reason, count] : results.skipReasons()) {
        std::cerr << "  " << count << " " << reason << "\n";
    }
    if (malformed.count > 0) {
        std::cerr << "  " << malformed.count << " malformed in the treebank, e.g. "
                  << malformed.example << "\n";
    }
    std::cerr << "attnscope-cli: wrote " << args.out << "\n";
    return 0;
}

analysis::ScoreOptions scoreOptions(const DepsArgs& args) {
    return {aggregation(args.from), args.mergeSubtypes,
            args.mwt == "share" ? analysis::MultiwordRule::Share : analysis::MultiwordRule::Split};
}

// Every option that changes the counts or the written file; merge rebuilds DepsArgs from it.
nlohmann::json partOptions(const DepsArgs& args) {
    return {{"from", args.from},
            {"mwt", args.mwt},
            {"merge_subtypes", args.mergeSubtypes},
            {"strict", args.strict},
            {"max_sentences", args.maxSentences ? nlohmann::json(*args.maxSentences) : nullptr},
            {"min_count", args.minCount},
            {"relations", args.relations}};
}

DepsArgs argsOfPart(const exporting::PartialResult& part, const std::string& out) {
    const io::JsonAt at = io::JsonAt{part.file}["options"];
    const nlohmann::json& o = part.options;
    DepsArgs args;
    args.modelDir = part.modelPath();
    args.treebank = part.corpusPath();
    args.from = io::asString(io::member(o, at, "from"), at["from"]);
    args.mwt = io::asString(io::member(o, at, "mwt"), at["mwt"]);
    if ((args.from != "mean" && args.from != "first" && args.from != "max") ||
        (args.mwt != "split" && args.mwt != "share")) {
        io::failAt(at, "unknown --from or --mwt value");
    }
    args.mergeSubtypes = io::asBool(io::member(o, at, "merge_subtypes"), at["merge_subtypes"]);
    args.minCount = io::asInt(io::member(o, at, "min_count"), at["min_count"], 0);
    const nlohmann::json& relations = io::member(o, at, "relations");
    io::expectArray(relations, at["relations"]);
    for (std::size_t i = 0; i < relations.size(); ++i) {
        args.relations.push_back(io::asString(relations[i], at["relations"][i]));
    }
    args.out = out;
    return args;
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
    addNoBatchOption(*deps, args.noBatch);
    deps->add_option("--min-count", args.minCount, "Relations rarer than this are listed apart")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    deps->add_option("--out", args.out,
                     "results.csv (relation table) or results.h5 (all counts); with --shard, "
                     "part.part.json")
        ->required()
        ->check(csvH5OrPartOutput());
    deps->add_option("--dump", args.dump, "Also write every scored sentence's attention (.h5)");
    addShardOption(*deps, args.shard, "sentences");
    deps->callback([deps, &args] { checkShardOutput(*deps, args.shard, args.out, {"--dump"}); });
    return deps;
}

int runDeps(const DepsArgs& args) {
    const InterruptCatcher interrupts;
    checkOutput("--out", args.out);
    checkOutput("--dump", args.dump);
    const std::optional<exporting::Shard> shard = shardOf(args.shard);
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
    const std::vector<text::Sentence> sentences =
        shard ? shardUnits(treebank.sentences, *shard) : std::move(treebank.sentences);
    BatchedShares batched(args.threads, !args.noBatch);  // their products together
    analysis::TreebankShares how;
    how.shares = batched.shares();
    std::vector<std::vector<exporting::DumpedSentence>> dumps(how.shares);
    ScoringProgress progress;
    progress.total = sentences.size();
    progress.unit = "sentences";
    how.sentenceDone = [&progress] { ++progress.done; };
    if (!args.dump.empty()) {
        how.scored = [&dumps](std::size_t share, const auto& s, const auto& tokens, const auto& r) {
            dumps[share].push_back(dumped(s, tokens, r));
        };
    }
    const DependencyAccumulator results = analysis::scoreTreebank(
        *model, sentences, scoreOptions(args), how, batched.executor(progress, how.cancel));
    const Malformed malformed{static_cast<std::int64_t>(treebank.skipped),
                              treebank.warnings.empty() ? "" : treebank.warnings.front()};
    if (!shard) {
        return writeDepsOutputs(args, results, malformed, dumps);
    }
    exporting::PartialResult part;
    part.command = "deps";
    part.options = partOptions(args);
    part.model = exporting::modelFingerprint(*model, args.modelDir);
    // Units: every sentence after --max-sentences (moved from only without --shard).
    part.corpus = exporting::corpusFingerprint(
        args.treebank, static_cast<std::int64_t>(treebank.sentences.size()));
    part.shard = *shard;
    part.totals = {{"malformed", malformed.count}, {"malformed_example", malformed.example}};
    part.state = analysis::dependencyState(results);
    writePart(args.out, part, sentences.size(), "sentences");
    return 0;
}

int mergeDeps(const std::vector<exporting::PartialResult>& parts, const std::string& out) {
    checkMergedCsvOrH5(out, "deps");
    const DepsArgs args = argsOfPart(parts.front(), out);
    const analysis::ScoreOptions options = scoreOptions(args);
    DependencyAccumulator merged(parts.front().shape().layers, parts.front().shape().heads,
                                 options);
    for (const exporting::PartialResult& part : parts) {
        merged.merge(analysis::dependencyFromState(part.state, io::JsonAt{part.file}["state"],
                                                   part.shape(), options));
    }
    const io::JsonAt totals = io::JsonAt{parts.front().file}["totals"];
    const nlohmann::json& t = parts.front().totals;
    const Malformed malformed{
        analysis::partialCount(io::member(t, totals, "malformed"), totals["malformed"]),
        io::asString(io::member(t, totals, "malformed_example"), totals["malformed_example"])};
    return writeDepsOutputs(args, merged, malformed, {});
}

}  // namespace attnscope::cli
