#include "analyses/series/series_command.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "attnscope/analysis/checkpoint_series.h"
#include "attnscope/base/error.h"
#include "attnscope/export/csv_writer.h"
#include "attnscope/text/sentence_file.h"
#include "cli/cli_checks.h"
#include "cli/seq2seq_input.h"

namespace attnscope::cli {

namespace {

namespace fs = std::filesystem;
using analysis::HeadTrainingStats;
using analysis::SeriesCheckpoint;

std::vector<SeriesCheckpoint> seriesOf(const std::vector<std::string>& paths) {
    if (paths.size() == 1) {
        return analysis::seriesFromFolder(paths.front());
    }
    return analysis::seriesFromPaths({paths.begin(), paths.end()});
}

std::vector<std::int32_t> idsOf(const model::Model& m, const std::string& text,
                                const std::string& what) {
    if (!m.tokenizer) {
        throw InvalidArgument(what +
                              ": the first checkpoint has no tokenizer files; give "
                              "--token-ids instead");
    }
    std::vector<std::int32_t> ids;
    for (const tokenize::Token& t : textTokens(m, *m.tokenizer, text)) {
        ids.push_back(t.id);
    }
    return ids;
}

// The token ids every checkpoint runs, through the first checkpoint's tokenizer.
std::vector<std::vector<std::int32_t>> sequencesOf(const SeriesArgs& args, const model::Model& m) {
    if (!args.tokenIds.empty()) {
        return {checkedTokenIds(args.tokenIds)};
    }
    if (args.text) {
        return {idsOf(m, *args.text, "--text")};
    }
    std::vector<std::string> sentences = text::readSentences(args.sentencesFile);
    if (args.maxSentences && sentences.size() > static_cast<std::size_t>(*args.maxSentences)) {
        sentences.resize(static_cast<std::size_t>(*args.maxSentences));
    }
    std::vector<std::vector<std::int32_t>> out;
    for (std::size_t i = 0; i < sentences.size(); ++i) {
        out.push_back(idsOf(m, sentences[i], "--sentences: sentence " + std::to_string(i + 1)));
    }
    if (out.empty()) {
        throw InvalidArgument(args.sentencesFile + ": no sentences");
    }
    return out;
}

forward::ForwardOptions optionsOf(const SeriesArgs& args) {
    SentenceArgs sentence;
    sentence.mask = args.mask;
    forward::ForwardOptions options = forwardOptions(sentence);
    // Summaries and one head at a time: a big checkpoint's maps need not fit at once.
    options.mapBudgetBytes = std::size_t{256} << 20;
    return options;
}

std::string stepText(const SeriesCheckpoint& c) {
    return c.step ? std::to_string(*c.step) : std::string("-");
}

// "n/a" where the probe did not run (bidirectional models).
std::string probeText(float v) {
    std::array<char, 32> text{};
    std::snprintf(text.data(), text.size(), "%.3f", double(v));
    return std::isnan(v) ? std::string("n/a") : std::string(text.data());
}

void printRows(const SeriesCheckpoint& c, const std::vector<HeadTrainingStats>& stats, int nHeads) {
    for (std::size_t i = 0; i < stats.size(); ++i) {
        const HeadTrainingStats& s = stats[i];
        std::array<char, 200> row{};
        std::snprintf(row.data(), row.size(),
                      "%-16s %8s %5zu %4zu %8.3f %11.3f %7.3f %7.3f %8.3f %7s\n", c.label.c_str(),
                      stepText(c).c_str(), i / static_cast<std::size_t>(nHeads),
                      i % static_cast<std::size_t>(nHeads), double(s.meanEntropy),
                      double(s.maxAbsLogit), double(s.sinkMass), double(s.prevTokenScore),
                      double(s.oneHotShare), probeText(s.inductionProbe).c_str());
        std::cout << row.data();
    }
}

void addCsvRows(exporting::CsvWriter& csv, const SeriesCheckpoint& c,
                const std::vector<HeadTrainingStats>& stats, int nHeads) {
    for (std::size_t i = 0; i < stats.size(); ++i) {
        const HeadTrainingStats& s = stats[i];
        const exporting::CsvValue step =
            c.step ? exporting::CsvValue(*c.step) : exporting::CsvValue(std::string());
        csv.addRow({c.label, step, static_cast<std::int64_t>(i / static_cast<std::size_t>(nHeads)),
                    static_cast<std::int64_t>(i % static_cast<std::size_t>(nHeads)), s.meanEntropy,
                    s.maxAbsLogit, s.sinkMass, s.prevTokenScore, s.oneHotShare, s.inductionProbe});
    }
}

}  // namespace

CLI::App* addSeriesCommand(CLI::App& app, SeriesArgs& args) {
    auto* cmd = app.add_subcommand(
        "series",
        "Per-head statistics across training checkpoints (entropy, max |logit|, first-token "
        "mass, previous-token score, one-hot rows, induction probe)");
    cmd->add_option("PATH", args.paths,
                    "A folder of step<N> / checkpoint-<N> checkpoints, or two or more model "
                    "folders or GGUF files in order")
        ->required();
    auto* text = cmd->add_option("--text", args.text,
                                 "Input text (the first checkpoint's "
                                 "tokenizer)");
    auto* ids = addIdListOption(*cmd, "--token-ids", args.tokenIds, "Token ids, e.g. 0,510,5798");
    auto* file = cmd->add_option("--sentences", args.sentencesFile,
                                 "Sentences to pool over: .txt (one per line) or CoNLL-U");
    text->excludes(ids);
    file->excludes(text);
    file->excludes(ids);
    cmd->add_option("--max-sentences", args.maxSentences, "Use only the first N sentences")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--mask", args.mask, "Mask: default (the model's), none, causal")
        ->check(CLI::IsMember({"default", "none", "causal"}));
    addInductionProbeOptions(*cmd, args.probeRepeats, args.probeLength, args.probeSeed);
    cmd->add_option("--out", args.out, "Also write the table (.csv)")
        ->check(CLI::Validator(
            [](std::string& path) -> std::string {
                return path.ends_with(".csv") ? std::string()
                                              : std::string("--out must end in .csv");
            },
            "FILE.csv"));
    cmd->callback([&args] {
        if (!args.text && args.tokenIds.empty() && args.sentencesFile.empty()) {
            throw CLI::RequiredError("--text, --token-ids or --sentences");
        }
    });
    return cmd;
}

int runSeries(const SeriesArgs& args) {
    checkOutput("--out", args.out);
    const std::vector<SeriesCheckpoint> series = seriesOf(args.paths);
    const bool idsOnly = !args.tokenIds.empty();
    std::shared_ptr<const model::Model> first = loadModelWithWarnings(
        series.front().path.string(),
        idsOnly ? model::TokenizerLoading::VocabularyOnly : model::TokenizerLoading::Full);
    refuseEncoderDecoder("series", series.front().path.string(), *first);
    const model::ModelSpec shape = first->spec;
    const auto sequences = sequencesOf(args, *first);
    const forward::ForwardOptions options = optionsOf(args);
    analysis::InductionProbeOptions probeOptions;
    probeOptions.repeats = args.probeRepeats;
    probeOptions.length = args.probeLength;
    probeOptions.seed = args.probeSeed;
    // Drawn once: every checkpoint reads the same probe sequences.
    const analysis::InductionProbe probe =
        analysis::drawInductionProbe(*first, sequences, probeOptions);
    std::cout << "# " << series.size() << " checkpoints, " << sequences.size()
              << (sequences.size() == 1 ? " sequence" : " sequences")
              << "; sink: mean first-token weight of rows 1…; prev: previous-token detector; "
                 "induct: induction probe ";
    if (probe.sequences.empty()) {
        std::cout << "(n/a: not a causal model, or no repeats)\n";
    } else {
        std::cout << "(" << probe.sequences.size() << " repeated sequences of " << probe.length
                  << " tokens, seed " << args.probeSeed << ")\n";
    }
    std::cout << "checkpoint           step layer head  entropy  max|logit|    sink    prev  "
                 "one-hot  induct\n";
    exporting::CsvWriter csv({"checkpoint", "step", "layer", "head", "mean_entropy",
                              "max_abs_logit", "sink_mass", "prev_token", "one_hot_share",
                              "induction_probe"});
    for (std::size_t k = 0; k < series.size(); ++k) {
        const SeriesCheckpoint& c = series[k];
        std::shared_ptr<const model::Model> m =
            k == 0
                ? std::move(first)
                : loadModelWithWarnings(c.path.string(), model::TokenizerLoading::VocabularyOnly);
        refuseEncoderDecoder("series", c.path.string(), *m);
        analysis::checkSameShape(shape, m->spec, c.path.string());
        const auto stats = analysis::trainingStats(*m, sequences, options, probe);
        printRows(c, stats, shape.nHeads);
        addCsvRows(csv, c, stats, shape.nHeads);
    }
    if (!args.out.empty()) {
        csv.writeFile(args.out);
        std::cerr << "attnscope-cli: wrote " << args.out << "\n";
    }
    return 0;
}

}  // namespace attnscope::cli
