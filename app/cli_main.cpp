// attnscope-cli: the core from the command line. Exit codes: 0 success, 1 data error (one line
// on stderr), 2 usage error.
#include <functional>
#include <iostream>
#include <map>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "analyses/ablation/ablate_command.h"
#include "analyses/attribution/attribution_command.h"
#include "analyses/circuits/circuits_command.h"
#include "analyses/compare/compare_models_command.h"
#include "analyses/coref/coref_command.h"
#include "analyses/dependencies/deps_command.h"
#include "analyses/dla/dla_command.h"
#include "analyses/entropy/stats_command.h"
#include "analyses/generation/generate_command.h"
#include "analyses/importance/importance_command.h"
#include "analyses/lens/lens_command.h"
#include "analyses/offsets/positions_command.h"
#include "analyses/patching/patch_command.h"
#include "analyses/saturation/saturation_command.h"
#include "analyses/series/series_command.h"
#include "analyses/survey/survey_command.h"
#include "attnscope/base/cancel.h"
#include "attnscope/base/error.h"
#include "attnscope/base/memory_reuse.h"
#include "attnscope/base/version.h"
#include "cli/cli_checks.h"
#include "cli/commands.h"
#include "cli/merge_command.h"
#include "cli/predict_command.h"
#include "cli/render_command.h"

namespace {

// Runs the chosen command; the project's errors, interrupts and anything else that escapes
// become one line on stderr and an exit code, never an abort.
int runGuarded(const std::function<int()>& command) {
    using namespace attnscope;
    try {
        const int code = command();
        // What the command printed may still sit in the buffer: a full disk or a closed pipe
        // shows only now, and must not end as success (issue 30).
        cli::flushStandardOutput();
        return code;
    } catch (const Cancelled&) {
        std::cerr << "attnscope-cli: interrupted; nothing written\n";
        return 130;  // the shell's code for a run ended by Ctrl+C
    } catch (const Error& e) {
        std::cerr << "attnscope-cli: " << e.what() << "\n";
        return 1;
    } catch (const std::bad_alloc&) {
        // The loaders check declared sizes against the files, so this is a model or input that
        // truly does not fit in this machine's memory.
        std::cerr << "attnscope-cli: out of memory: the model or the input is too large for "
                     "this machine\n";
        return 1;
    } catch (const std::exception& e) {
        // A bug, not bad input: still one line and an exit code, never an abort.
        std::cerr << "attnscope-cli: internal error: " << e.what() << "\n";
        return 1;
    }
}

namespace cli = attnscope::cli;

// Every subcommand's arguments: CLI11 writes into them while parsing, so they outlive it.
struct CliArgs {
    std::string modelDir;
    std::string text;
    bool noSpecial = false;
    cli::AttentionArgs att;
    cli::RenderArgs renderArgs;
    cli::StatsArgs statsArgs;
    cli::DepsArgs depsArgs;
    cli::CorefArgs corefArgs;
    cli::PositionsArgs positionsArgs;
    cli::SaturationArgs saturationArgs;
    cli::SeriesArgs seriesArgs;
    cli::DlaArgs dlaArgs;
    cli::LensArgs lensArgs;
    cli::PatchArgs patchArgs;
    cli::CircuitsArgs circuitsArgs;
    cli::GenerateArgs generateArgs;
    cli::PredictArgs predictArgs;
    cli::AblateArgs ablateArgs;
    cli::ImportanceArgs importanceArgs;
    cli::SurveyArgs surveyArgs;
    cli::AttributionArgs attributionArgs;
    cli::CompareModelsArgs compareModelsArgs;
    cli::MergeArgs mergeArgs;
};

using Commands = std::vector<std::pair<CLI::App*, std::function<int()>>>;

void addAnalysisCommands(CLI::App& app, CliArgs& a, Commands& commands);

// Each subcommand with what runs when it was the one parsed.
Commands addCommands(CLI::App& app, CliArgs& a) {
    Commands commands;
    auto* info =
        app.add_subcommand("info", "Architecture, sizes, parameter count, dtype, tokenizer");
    cli::addModelDirArgument(*info, a.modelDir);
    commands.emplace_back(info, [&a] { return cli::runInfo(a.modelDir); });

    auto* tok = app.add_subcommand("tokenize", "Tokens with ids and character spans");
    cli::addModelDirArgument(*tok, a.modelDir);
    tok->add_option("TEXT", a.text, "Text to tokenize")->required();
    tok->add_flag("--no-special", a.noSpecial, "Do not add [CLS]/[SEP] or <s>/</s>");
    commands.emplace_back(tok, [&a] { return cli::runTokenize(a.modelDir, a.text, !a.noSpecial); });

    commands.emplace_back(cli::addAttentionCommand(app, a.att),
                          [&a] { return cli::runAttention(a.att); });
    commands.emplace_back(cli::addRenderCommand(app, a.renderArgs),
                          [&a] { return cli::runRender(a.renderArgs); });
    commands.emplace_back(cli::addStatsCommand(app, a.statsArgs),
                          [&a] { return cli::runStats(a.statsArgs); });
    addAnalysisCommands(app, a, commands);
    return commands;
}

// The corpus jobs, the analyses of one sentence and `merge`, after addCommands' first ones.
void addAnalysisCommands(CLI::App& app, CliArgs& a, Commands& commands) {
    commands.emplace_back(cli::addDepsCommand(app, a.depsArgs),
                          [&a] { return cli::runDeps(a.depsArgs); });
    commands.emplace_back(cli::addCorefCommand(app, a.corefArgs),
                          [&a] { return cli::runCoref(a.corefArgs); });
    commands.emplace_back(cli::addPositionsCommand(app, a.positionsArgs),
                          [&a] { return cli::runPositions(a.positionsArgs); });
    commands.emplace_back(cli::addSaturationCommand(app, a.saturationArgs),
                          [&a] { return cli::runSaturation(a.saturationArgs); });
    commands.emplace_back(cli::addSeriesCommand(app, a.seriesArgs),
                          [&a] { return cli::runSeries(a.seriesArgs); });
    commands.emplace_back(cli::addDlaCommand(app, a.dlaArgs),
                          [&a] { return cli::runDla(a.dlaArgs); });
    commands.emplace_back(cli::addLensCommand(app, a.lensArgs),
                          [&a] { return cli::runLens(a.lensArgs); });
    commands.emplace_back(cli::addPatchCommand(app, a.patchArgs),
                          [&a] { return cli::runPatch(a.patchArgs); });
    commands.emplace_back(cli::addCircuitsCommand(app, a.circuitsArgs),
                          [&a] { return cli::runCircuits(a.circuitsArgs); });
    commands.emplace_back(cli::addGenerateCommand(app, a.generateArgs),
                          [&a] { return cli::runGenerate(a.generateArgs); });
    commands.emplace_back(cli::addPredictCommand(app, a.predictArgs),
                          [&a] { return cli::runPredict(a.predictArgs); });
    commands.emplace_back(cli::addAblateCommand(app, a.ablateArgs),
                          [&a] { return cli::runAblate(a.ablateArgs); });
    commands.emplace_back(cli::addImportanceCommand(app, a.importanceArgs),
                          [&a] { return cli::runImportance(a.importanceArgs); });
    commands.emplace_back(cli::addSurveyCommand(app, a.surveyArgs),
                          [&a] { return cli::runSurvey(a.surveyArgs); });
    commands.emplace_back(cli::addAttributionCommand(app, a.attributionArgs),
                          [&a] { return cli::runAttribution(a.attributionArgs); });
    commands.emplace_back(cli::addCompareModelsCommand(app, a.compareModelsArgs),
                          [&a] { return cli::runCompareModels(a.compareModelsArgs); });

    // Corpus jobs split with --shard K/N (issue 35): each command merges its own parts.
    const std::map<std::string, cli::PartMerger> mergers = {{"deps", cli::mergeDeps},
                                                            {"coref", cli::mergeCoref},
                                                            {"positions", cli::mergePositions},
                                                            {"saturation", cli::mergeSaturation}};
    commands.emplace_back(cli::addMergeCommand(app, a.mergeArgs),
                          [&a, mergers] { return cli::runMerge(a.mergeArgs, mergers); });
}

}  // namespace

int main(int argc, char** argv) {
    using namespace attnscope;
    keepFreedMemoryForReuse();
    cli::captureStandardOutput();
    CLI::App app{"AttnScope command-line tool: inspect models and export every attention head"};
    app.set_version_flag("--version", std::string(version()));
    app.require_subcommand(1);
    CliArgs args;
    const Commands commands = addCommands(app, args);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return 2;
    }
    for (const auto& [command, run] : commands) {
        if (command->parsed()) {
            return runGuarded(run);
        }
    }
    return 2;  // unreachable: require_subcommand(1)
}
