#include "analyses/survey/survey_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <numeric>
#include <optional>
#include <vector>

#include <CLI/CLI.hpp>

#include "attnscope/analysis/head_labels.h"
#include "attnscope/analysis/head_survey.h"
#include "attnscope/analysis/survey_corpus.h"
#include "attnscope/base/error.h"
#include "attnscope/export/survey_export.h"
#include "attnscope/model/model.h"
#include "cli/cli_checks.h"
#include "cli/scoring_support.h"
#include "cli/seq2seq_input.h"

namespace attnscope::cli {

namespace {

using analysis::HeadSurvey;

constexpr int kTop = 5;  // heads listed per kind

// Mean over heads of a layer, NaN left out ("-" in the table when none is defined).
std::string layerMean(const HeadSurvey& s, const std::string& name, int layer) {
    const std::vector<double>& v = s.score(name);
    double sum = 0;
    int count = 0;
    for (int h = 0; h < s.nHeads; ++h) {
        const double x = v[static_cast<std::size_t>(layer * s.nHeads + h)];
        if (std::isfinite(x)) {
            sum += x;
            ++count;
        }
    }
    if (count == 0) {
        return "         -";
    }
    char cell[32];
    std::snprintf(cell, sizeof cell, "%10.3f", sum / count);
    return cell;
}

const std::vector<std::string>& headlineScores() {
    static const std::vector<std::string> names = {
        "prev", "first", "first_mass", "entropy_norm", "tl_induction_mul", "probe_induction"};
    return names;
}

void printLayerTable(const HeadSurvey& s) {
    std::cout << "per layer, mean over heads:\n  layer";
    for (const std::string& name : headlineScores()) {
        char cell[32];
        std::snprintf(cell, sizeof cell, " %16s", name.c_str());
        std::cout << cell;
    }
    std::cout << "\n";
    for (int layer = 0; layer < s.nLayers; ++layer) {
        char cell[32];
        std::snprintf(cell, sizeof cell, "  %5d", layer);
        std::cout << cell;
        for (const std::string& name : headlineScores()) {
            std::cout << "       " << layerMean(s, name, layer);
        }
        std::cout << "\n";
    }
}

// The kTop heads with the largest finite `name`, as "layer-head value".
void printTop(const HeadSurvey& s, const std::string& title, const std::string& name) {
    const std::vector<double>& v = s.score(name);
    std::vector<int> heads;
    for (std::size_t k = 0; k < v.size(); ++k) {
        if (std::isfinite(v[k])) {
            heads.push_back(static_cast<int>(k));
        }
    }
    std::stable_sort(heads.begin(), heads.end(), [&v](int a, int b) {
        return v[static_cast<std::size_t>(a)] > v[static_cast<std::size_t>(b)];
    });
    heads.resize(std::min(heads.size(), static_cast<std::size_t>(kTop)));
    std::cout << "  " << title << " (" << name << "):";
    if (heads.empty()) {
        std::cout << " undefined";
    }
    for (const int k : heads) {
        char cell[48];
        std::snprintf(cell, sizeof cell, "  %d-%d %.3f", k / s.nHeads, k % s.nHeads,
                      v[static_cast<std::size_t>(k)]);
        std::cout << cell;
    }
    std::cout << "\n";
}

void printSummary(const HeadSurvey& s, const analysis::SurveyCorpus& corpus,
                  const analysis::SurveyOptions& options, const SurveyArgs& args) {
    std::cout << "corpus: " << args.corpus << ": " << corpus.read << " sentences, " << s.sentences
              << " surveyed, " << corpus.tooLong
              << " longer than the model's positions (left out), " << s.skipped << " empty\n"
              << "ids: " << options.specialIds.size() << " special, " << options.punctIds.size()
              << " punctuation, " << options.periodIds.size() << " period\n";
    printLayerTable(s);
    const bool probed =
        std::any_of(s.score("probe_induction").begin(), s.score("probe_induction").end(),
                    [](double x) { return std::isfinite(x); });
    std::cout << "top heads:\n";
    printTop(s, "previous token", "prev");
    printTop(s, "induction", probed ? "probe_induction" : "tl_induction_mul");
    printTop(s, "duplicate token", "tl_dup_mul");
    printTop(s, "sink, fraction of sentences", "sink_rate");
    printTop(s, "positional", "positional_frequency");
    if (s.rareError.empty()) {
        printTop(s, "rare word", "rare_top1");
    } else {
        std::cout << "  rare word (rare_top1): undefined: " << s.rareError << "\n";
    }
    if (!s.probeSequences.empty()) {
        const auto& first = s.probeSequences.front();
        std::cout << "probe: " << s.probeSequences.size() << " sequences of " << first.size()
                  << " ids (seed " << options.probeSeed << "), the first:";
        for (const std::int32_t id : first) {
            std::cout << " " << id;
        }
        std::cout << "\n";
    }
    if (!s.mdsError.empty()) {
        std::cout << "no MDS map: " << s.mdsError << "\n";
    }
}

struct Labelled {
    std::optional<analysis::DependencyLabels> dependencies;
    exporting::SurveyExtras extras;
};

Labelled labelSurvey(const analysis::SurveyRun& run) {
    Labelled out;
    if (run.dependencies) {
        out.dependencies = analysis::dependencyLabels(*run.dependencies);
        out.extras.bestRelations = analysis::bestRelations(*out.dependencies);
    }
    out.extras.labels =
        analysis::labelHeads(run.survey, {}, out.dependencies ? &*out.dependencies : nullptr);
    return out;
}

std::string headName(std::size_t k, int nHeads) {
    const auto h = static_cast<std::size_t>(nHeads);
    return std::to_string(k / h) + "-" + std::to_string(k % h);
}

// The kTop heads whose best relation beats its fixed-offset baseline by the most (L10's margin).
void printBestRelations(const std::vector<analysis::BestRelation>& best, int nHeads) {
    std::vector<std::size_t> heads;
    for (std::size_t k = 0; k < best.size(); ++k) {
        if (!best[k].relation.empty()) {
            heads.push_back(k);
        }
    }
    std::stable_sort(heads.begin(), heads.end(), [&best](std::size_t a, std::size_t b) {
        return best[a].margin() > best[b].margin();
    });
    heads.resize(std::min(heads.size(), static_cast<std::size_t>(kTop)));
    std::cout << "  best relation over its baseline:";
    for (const std::size_t k : heads) {
        char cell[96];
        std::snprintf(cell, sizeof cell, "  %s %s %+.3f (%.3f vs %.3f)",
                      headName(k, nHeads).c_str(), best[k].relation.c_str(), best[k].margin(),
                      best[k].accuracy, best[k].baseline);
        std::cout << cell;
    }
    std::cout << (heads.empty() ? " none\n" : "\n");
}

// Which heads got which label (rules L1-L10), and for a treebank the dependency counts used.
void printLabels(const Labelled& labelled, const analysis::SurveyRun& run) {
    const analysis::HeadSurvey& s = run.survey;
    if (run.dependencies) {
        const auto& d = *run.dependencies;
        std::cout << "dependency relations: " << d.sentencesScored() << " sentences scored, "
                  << d.sentencesSkipped() << " skipped; " << labelled.dependencies->relations.size()
                  << " relations with at least 100 words\n";
        printBestRelations(labelled.extras.bestRelations, s.nHeads);
    }
    std::map<std::string, std::vector<std::string>> byTag;
    std::size_t none = 0;
    for (std::size_t k = 0; k < labelled.extras.labels.size(); ++k) {
        none += labelled.extras.labels[k].empty() ? 1 : 0;
        for (const auto& l : labelled.extras.labels[k]) {
            byTag[l.tag].push_back(headName(k, s.nHeads));
        }
    }
    std::cout << "labels (rules L1-L10; " << labelled.extras.labels.size() - none << " of "
              << labelled.extras.labels.size() << " heads labelled):\n";
    if (byTag.empty()) {
        std::cout << "  none: no head met a rule's threshold\n";
    }
    for (const auto& [tag, heads] : byTag) {
        std::cout << "  " << tag << " (" << heads.size() << "):";
        for (const std::string& h : heads) {
            std::cout << " " << h;
        }
        std::cout << "\n";
    }
}

analysis::SurveyOptions surveyOptions(const SurveyArgs& args) {
    analysis::SurveyOptions options;
    options.sinkEps = args.sinkEps;
    options.positionalThreshold = args.positionalThreshold;
    options.rareTop = args.rareTop;
    options.probeRepeats = args.probeRepeats;
    options.probeLength = args.probeLength;
    options.probeSeed = args.probeSeed;
    return options;
}

}  // namespace

CLI::App* addSurveyCommand(CLI::App& app, SurveyArgs& args) {
    auto* cmd = app.add_subcommand(
        "survey",
        "What every head does over a corpus: surface statistics, detectors, probe, "
        "sinks, positional and rare-word heads, head distances and their MDS map");
    addModelDirArgument(*cmd, args.modelDir);
    addCorpusArgument(*cmd, args.corpus);
    cmd->add_option("--out", args.out, "survey.csv (one row per head) or survey.h5 (arrays)")
        ->required()
        ->check(csvOrH5Output());
    cmd->add_option("--max-sentences", args.maxSentences, "Use only the first N sentences")
        ->check(CLI::PositiveNumber);
    addThreadsOption(*cmd, args.threads);
    addNoBatchOption(*cmd, args.noBatch);
    addInductionProbeOptions(*cmd, args.probeRepeats, args.probeLength, args.probeSeed);
    cmd->add_option("--sink-eps", args.sinkEps,
                    "A sentence is a sink for a head when key 0 gets more than this")
        ->check(finiteRange(0.0, 1.0))
        ->capture_default_str();
    cmd->add_option("--rare-top", args.rareTop,
                    "Rare-word heads: a sentence counts when its rarest token is not among the "
                    "corpus's N most frequent ids (Voita's 500; a corpus of at most N distinct "
                    "ids has no such sentence)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    cmd->add_option("--positional-threshold", args.positionalThreshold,
                    "A head is positional when one offset wins at least this share of its rows")
        ->check(finiteRange(0.0, 1.0))
        ->capture_default_str();
    return cmd;
}

int runSurvey(const SurveyArgs& args) {
    const InterruptCatcher interrupts;
    checkOutput("--out", args.out);
    const auto model = model::loadModel(args.modelDir);
    refuseEncoderDecoder("survey", args.modelDir, *model);
    throwIfInterrupted();
    if (!model->tokenizer) {
        throw Error(args.modelDir + ": no tokenizer to read the corpus with");
    }
    const analysis::SurveyCorpus corpus = analysis::readSurveyCorpus(
        *model, args.corpus, static_cast<std::size_t>(args.maxSentences.value_or(0)));
    throwIfInterrupted();
    if (corpus.ids.empty()) {
        throw Error(args.corpus + ": no sentence to survey (" + std::to_string(corpus.read) +
                    " read, " + std::to_string(corpus.tooLong) +
                    " longer than the model's positions); nothing written");
    }
    analysis::SurveyOptions options = surveyOptions(args);
    analysis::addCorpusIds(*model, corpus, options);
    std::cerr << "attnscope-cli: survey of " << model->spec.nLayers << " x " << model->spec.nHeads
              << " heads on " << corpus.ids.size() << " sentences";
    if (corpus.tooLong > 0) {
        std::cerr << " (" << corpus.tooLong << " longer than the model's "
                  << model->spec.maxTokens() << " positions left out)";
    }
    if (corpus.malformed > 0) {
        std::cerr << " (" << corpus.malformed << " malformed in the treebank left out)";
    }
    std::cerr << "; Ctrl+C stops it\n";
    ScoringProgress progress;
    options.progress = percentProgress(progress);
    // Sentences side by side, their products together (--no-batch: each alone).
    BatchedShares batched(args.threads, !args.noBatch);
    options.shares = batched.shares();
    const analysis::SurveyRun run = analysis::runSurvey(*model, corpus, options, {},
                                                        batched.executor(progress, options.cancel));
    throwIfInterrupted();
    Labelled labelled = labelSurvey(run);
    if (isH5Path(args.out)) {
        exporting::writeSurveyH5(args.out, run.survey, options,
                                 {args.modelDir, args.corpus, corpus.tooLong}, labelled.extras);
    } else {
        exporting::writeSurveyCsv(args.out, run.survey, labelled.extras);
    }
    printSummary(run.survey, corpus, options, args);
    printLabels(labelled, run);
    std::cerr << "attnscope-cli: wrote " << args.out;
    if (std::filesystem::path(args.out).extension() == ".csv" &&
        !run.survey.probeSequences.empty()) {
        std::cerr << " and the probe's sequences to "
                  << exporting::surveyProbeCsvPath(args.out).string();
    }
    std::cerr << "\n";
    return 0;
}

}  // namespace attnscope::cli
