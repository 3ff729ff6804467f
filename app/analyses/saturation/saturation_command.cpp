#include "analyses/saturation/saturation_command.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "attnscope/analysis/saturation.h"
#include "attnscope/base/error.h"
#include "attnscope/export/saturation_export.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/text/sentence_file.h"
#include "cli/cli_checks.h"
#include "cli/seq2seq_input.h"

namespace attnscope::cli {

namespace {

using analysis::SaturationAccumulator;

// The model's pass and, with a what-if, the changed one, pooled over every sentence.
struct Pools {
    SaturationAccumulator asIs;
    SaturationAccumulator changed;
    std::int64_t skipped = 0;
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
    for (std::size_t i = 0; i < sentences.size(); ++i) {
        try {
            std::vector<std::int32_t> ids;
            for (const tokenize::Token& t : textTokens(m, *m.tokenizer, sentences[i])) {
                ids.push_back(t.id);
            }
            addIds(m, ids, s, pools, false);
        } catch (const InvalidArgument& e) {
            if (pools.skipped++ == 0) {
                pools.firstSkipReason = "sentence " + std::to_string(i + 1) + ": " + e.what();
            }
        }
    }
    if (pools.asIs.sentences() == 0) {
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
    cmd->add_option("--out", args.out, "Also write the statistics (.csv or .h5)")
        ->check(csvOrH5Output());
    cmd->callback([&args] {
        if (args.sentencesFile.empty()) {
            checkSentenceArgs(args.sentence);
        }
    });
    return cmd;
}

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
    std::cout << "# " << pools.asIs.sentences()
              << (pools.asIs.sentences() == 1 ? " sentence" : " sentences")
              << "; what-if: " << forward::describe(whatIf)
              << "; one-hot: largest weight >= " << analysis::kOneHotWeight << "\n"
              << "setting  layer head  entropy max|unnorm| max|scaled|  max|logit| one-hot\n";
    exporting::SaturationRun run{args.sentence.modelDir,
                                 args.sentencesFile.empty()
                                     ? (args.sentence.text ? "--text" : "--token-ids")
                                     : args.sentencesFile,
                                 forward::describe(whatIf),
                                 model->spec.nLayers,
                                 model->spec.nHeads,
                                 pools.asIs.sentences(),
                                 {pools.asIs.result(), pools.asIsPass ? &*pools.asIsPass : nullptr},
                                 {}};
    printTable("model", run.asIs.heads);
    if (settings.changed) {
        run.changed = {pools.changed.result(), pools.changedPass ? &*pools.changedPass : nullptr};
        printTable("what-if", run.changed.heads);
    }
    if (pools.skipped > 0) {
        std::cerr << "attnscope-cli: skipped " << pools.skipped << " sentences, e.g. "
                  << pools.firstSkipReason << "\n";
    }
    if (!args.out.empty()) {
        isH5Path(args.out) ? exporting::writeSaturationHdf5(args.out, run)
                           : exporting::writeSaturationCsv(args.out, run);
        std::cerr << "attnscope-cli: wrote " << args.out << "\n";
    }
    return 0;
}

}  // namespace attnscope::cli
