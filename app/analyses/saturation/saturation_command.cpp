#include "analyses/saturation/saturation_command.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>

#include "attnscope/analysis/partial_state.h"
#include "attnscope/analysis/saturation.h"
#include "attnscope/base/error.h"
#include "attnscope/export/saturation_export.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/io/json_access.h"
#include "attnscope/text/sentence_file.h"
#include "cli/cli_checks.h"
#include "cli/seq2seq_input.h"
#include "cli/shard_support.h"

namespace attnscope::cli {

namespace {

using analysis::SaturationAccumulator;

// The model's pass and, with a what-if, the changed one, pooled over every sentence.
struct Pools {
    SaturationAccumulator asIs;
    SaturationAccumulator changed;
    std::int64_t skipped = 0;
    std::int64_t firstSkipSentence = 0;  // 1-based; 0: none skipped
    std::string firstSkipReason;
    // One sentence: its passes, whose rows the HDF5 file keeps.
    std::optional<forward::ForwardResult> asIsPass;
    std::optional<forward::ForwardResult> changedPass;
};

struct Settings {
    forward::ForwardOptions asIs;
    std::optional<forward::ForwardOptions> changed;
};

void addIds(const model::Model& m, const std::vector<std::int32_t>& ids, const Settings& s,
            Pools& pools, bool keepPasses) {
    forward::ForwardResult plain = forward::runForward(m, {ids, {}}, s.asIs);
    printResultWarnings(plain);
    pools.asIs.add(plain);
    if (s.changed) {
        forward::ForwardResult changed = forward::runForward(m, {ids, {}}, *s.changed);
        printResultWarnings(changed);
        pools.changed.add(changed);
        if (keepPasses) {
            pools.changedPass = std::move(changed);
        }
    }
    if (keepPasses) {
        pools.asIsPass = std::move(plain);
    }
}

std::vector<std::int32_t> sentenceIds(const model::Model& m, const SentenceArgs& args) {
    if (!args.text) {
        return checkedTokenIds(args.tokenIds);
    }
    if (!m.tokenizer) {
        throw InvalidArgument("--text: " + args.modelDir +
                              " has no tokenizer files; give --token-ids instead");
    }
    std::vector<std::int32_t> ids;
    for (const tokenize::Token& t : textTokens(m, *m.tokenizer, *args.text)) {
        ids.push_back(t.id);
    }
    return ids;
}

// Every sentence of the file; sentences the model cannot take are skipped and counted, as the
// other corpus commands do.
void addSentenceFile(const SaturationArgs& args, const model::Model& m, const Settings& s,
                     Pools& pools) {
    std::vector<std::string> sentences = text::readSentences(args.sentencesFile);
    if (args.maxSentences && sentences.size() > static_cast<std::size_t>(*args.maxSentences)) {
        sentences.resize(static_cast<std::size_t>(*args.maxSentences));
    }
    if (!m.tokenizer) {
        throw InvalidArgument("--sentences: " + args.sentence.modelDir +
                              " has no tokenizer files to turn sentences into tokens");
    }
    const std::optional<exporting::Shard> shard = shardOf(args.shard);
    for (std::size_t i = 0; i < sentences.size(); ++i) {
        if (shard && !shard->owns(i)) {
            continue;
        }
        try {
            std::vector<std::int32_t> ids;
            for (const tokenize::Token& t : textTokens(m, *m.tokenizer, sentences[i])) {
                ids.push_back(t.id);
            }
            addIds(m, ids, s, pools, false);
        } catch (const InvalidArgument& e) {
            if (pools.skipped++ == 0) {
                pools.firstSkipSentence = static_cast<std::int64_t>(i + 1);
                pools.firstSkipReason = "sentence " + std::to_string(i + 1) + ": " + e.what();
            }
        }
    }
    if (pools.asIs.sentences() == 0 && !shard) {  // a shard may hold only skipped sentences
        throw InvalidArgument(args.sentencesFile + ": no sentence could be analyzed" +
                              (pools.firstSkipReason.empty() ? "" : "; " + pools.firstSkipReason));
    }
}

std::string number(float v) {
    if (std::isnan(v)) {
        return "-";
    }
    std::array<char, 32> buf{};
    std::snprintf(buf.data(), buf.size(), "%.3f", static_cast<double>(v));
    return buf.data();
}

void printTable(const char* setting, const std::vector<analysis::HeadSaturation>& heads) {
    for (const analysis::HeadSaturation& h : heads) {
        std::array<char, 160> row{};
        std::snprintf(row.data(), row.size(), "%-8s %5d %4d %8.3f %11s %11s %11s %8.3f\n", setting,
                      h.head.layer, h.head.head, static_cast<double>(h.meanEntropy),
                      number(h.maxAbsUnnormed).c_str(), number(h.maxAbsScaled).c_str(),
                      number(h.maxAbsLogit).c_str(), static_cast<double>(h.oneHotShare));
        std::cout << row.data();
    }
}

}  // namespace

CLI::App* addSaturationCommand(CLI::App& app, SaturationArgs& args) {
    auto* cmd = app.add_subcommand(
        "saturation",
        "Per-head attention saturation: max |logit| before and after QK-norm and soft-cap, "
        "entropy, one-hot rows; optionally under a what-if");
    addSentenceOptions(*cmd, args.sentence);
    auto* file = cmd->add_option("--sentences", args.sentencesFile,
                                 "Sentences to pool over: .txt (one per line) or CoNLL-U");
    file->excludes(cmd->get_option("--text"));
    file->excludes(cmd->get_option("--token-ids"));
    cmd->add_option("--max-sentences", args.maxSentences, "Use only the first N sentences")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--what-if", args.whatIf,
                    "Also run with qk-norm=off|unit|model, softcap=off|C|model, "
                    "scale=inv-sqrt-dk|S|model (comma-separated)");
    cmd->add_option("--out", args.out,
                    "Also write the statistics (.csv or .h5); with --shard, part.part.json")
        ->check(csvH5OrPartOutput());
    addShardOption(*cmd, args.shard, "sentences of --sentences")->needs(file);
    cmd->callback([cmd, &args] {
        if (args.sentencesFile.empty()) {
            checkSentenceArgs(args.sentence);
        }
        checkShardOutput(*cmd, args.shard, args.out);
    });
    return cmd;
}

namespace {

// What one run (or merged shards) prints and writes.
struct Report {
    std::string model;
    std::string input;   // the sentence file, or "--text" / "--token-ids"
    std::string whatIf;  // forward::describe of the what-if; "none" without one
    bool changed = false;
    int nLayers = 0;
    int nHeads = 0;
};

int printAndWrite(const Report& report, const Pools& pools, const std::string& out) {
    std::cout << "# " << pools.asIs.sentences()
              << (pools.asIs.sentences() == 1 ? " sentence" : " sentences")
              << "; what-if: " << report.whatIf
              << "; one-hot: largest weight >= " << analysis::kOneHotWeight << "\n"
              << "setting  layer head  entropy max|unnorm| max|scaled|  max|logit| one-hot\n";
    exporting::SaturationRun run{report.model,
                                 report.input,
                                 report.whatIf,
                                 report.nLayers,
                                 report.nHeads,
                                 pools.asIs.sentences(),
                                 {pools.asIs.result(), pools.asIsPass ? &*pools.asIsPass : nullptr},
                                 {}};
    printTable("model", run.asIs.heads);
    if (report.changed) {
        run.changed = {pools.changed.result(), pools.changedPass ? &*pools.changedPass : nullptr};
        printTable("what-if", run.changed.heads);
    }
    if (pools.skipped > 0) {
        std::cerr << "attnscope-cli: skipped " << pools.skipped << " sentences, e.g. "
                  << pools.firstSkipReason << "\n";
    }
    if (!out.empty()) {
        isH5Path(out) ? exporting::writeSaturationHdf5(out, run)
                      : exporting::writeSaturationCsv(out, run);
        std::cerr << "attnscope-cli: wrote " << out << "\n";
    }
    return 0;
}

void writeSaturationPart(const SaturationArgs& args, const model::Model& model,
                         const Report& report, const Pools& pools) {
    std::size_t units = text::readSentences(args.sentencesFile).size();
    if (args.maxSentences) {
        units = std::min(units, static_cast<std::size_t>(*args.maxSentences));
    }
    exporting::PartialResult part;
    part.command = "saturation";
    part.options = {
        {"what_if", report.whatIf},
        {"changed", report.changed},
        {"mask", args.sentence.mask},
        {"int8_activations", args.sentence.int8Activations},
        {"max_sentences", args.maxSentences ? nlohmann::json(*args.maxSentences) : nullptr}};
    part.model = exporting::modelFingerprint(model, args.sentence.modelDir);
    part.corpus =
        exporting::corpusFingerprint(args.sentencesFile, static_cast<std::int64_t>(units));
    part.shard = *shardOf(args.shard);
    part.state = {{"as_is", analysis::saturationState(pools.asIs)},
                  {"changed", report.changed ? analysis::saturationState(pools.changed)
                                             : nlohmann::json(nullptr)},
                  {"skipped", pools.skipped},
                  {"first_skip_sentence", pools.firstSkipSentence},
                  {"first_skip_reason", pools.firstSkipReason}};
    writePart(args.out, part, units, "sentences in all");
}

}  // namespace

int runSaturation(const SaturationArgs& args) {
    checkOutput("--out", args.out);
    const bool idsOnly = args.sentencesFile.empty() && !args.sentence.text;
    const auto model = loadModelWithWarnings(
        args.sentence.modelDir,
        idsOnly ? model::TokenizerLoading::VocabularyOnly : model::TokenizerLoading::Full,
        activationPrecision(args.sentence));
    refuseEncoderDecoder("saturation", args.sentence.modelDir, *model);
    Settings settings;
    settings.asIs = forwardOptions(args.sentence);
    settings.asIs.recordUnnormed = true;
    forward::WhatIfSetting whatIf;
    if (!args.whatIf.empty()) {
        whatIf = forward::parseWhatIf(args.whatIf, model->spec.headDimK);
        settings.changed = settings.asIs;
        settings.changed->whatIf = whatIf.attention;
        settings.changed->scale = whatIf.scale;
    }
    Pools pools;
    if (args.sentencesFile.empty()) {
        addIds(*model, sentenceIds(*model, args.sentence), settings, pools, true);
    } else {
        addSentenceFile(args, *model, settings, pools);
    }
    const Report report{args.sentence.modelDir,
                        args.sentencesFile.empty() ? (args.sentence.text ? "--text" : "--token-ids")
                                                   : args.sentencesFile,
                        forward::describe(whatIf),
                        settings.changed.has_value(),
                        model->spec.nLayers,
                        model->spec.nHeads};
    if (!args.shard.empty()) {
        writeSaturationPart(args, *model, report, pools);
        return 0;
    }
    return printAndWrite(report, pools, args.out);
}

int mergeSaturation(const std::vector<exporting::PartialResult>& parts, const std::string& out) {
    checkMergedCsvOrH5(out, "saturation");
    const exporting::PartialResult& first = parts.front();
    const io::JsonAt options = io::JsonAt{first.file}["options"];
    Report report;
    report.model = first.modelPath();
    report.input = first.corpusPath();
    report.whatIf = io::asString(io::member(first.options, options, "what_if"), options["what_if"]);
    report.changed = io::asBool(io::member(first.options, options, "changed"), options["changed"]);
    report.nLayers = first.shape().layers;
    report.nHeads = first.shape().heads;
    Pools pools;
    for (const exporting::PartialResult& part : parts) {
        const io::JsonAt at = io::JsonAt{part.file}["state"];
        pools.asIs.merge(analysis::saturationFromState(io::member(part.state, at, "as_is"),
                                                       at["as_is"], part.shape()));
        if (report.changed) {
            pools.changed.merge(analysis::saturationFromState(io::member(part.state, at, "changed"),
                                                              at["changed"], part.shape()));
        }
        const std::int64_t skipped =
            analysis::partialCount(io::member(part.state, at, "skipped"), at["skipped"]);
        const std::int64_t firstSkip = analysis::partialCount(
            io::member(part.state, at, "first_skip_sentence"), at["first_skip_sentence"]);
        if (skipped > 0 && (pools.skipped == 0 || firstSkip < pools.firstSkipSentence)) {
            pools.firstSkipSentence = firstSkip;
            pools.firstSkipReason = io::asString(io::member(part.state, at, "first_skip_reason"),
                                                 at["first_skip_reason"]);
        }
        pools.skipped += skipped;
    }
    if (pools.asIs.sentences() == 0) {
        throw InvalidArgument(report.input + ": no sentence could be analyzed" +
                              (pools.firstSkipReason.empty() ? "" : "; " + pools.firstSkipReason));
    }
    return printAndWrite(report, pools, out);
}

}  // namespace attnscope::cli
