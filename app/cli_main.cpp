// attnscope-cli: the core from the command line. Exit codes: 0 success, 1 data error (one line
// on stderr), 2 usage error.
#include <functional>
#include <iostream>
#include <new>
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

}  // namespace

int main(int argc, char** argv) {
    using namespace attnscope;
    keepFreedMemoryForReuse();
    cli::captureStandardOutput();
    CLI::App app{"AttnScope command-line tool: inspect models and export every attention head"};
    app.set_version_flag("--version", std::string(version()));
    app.require_subcommand(1);
    // Each subcommand with what runs when it was the one parsed.
    std::vector<std::pair<CLI::App*, std::function<int()>>> commands;
    std::string modelDir;
    std::string text;
    bool noSpecial = false;

    auto* info =
        app.add_subcommand("info", "Architecture, sizes, parameter count, dtype, tokenizer");
    cli::addModelDirArgument(*info, modelDir);
    commands.emplace_back(info, [&] { return cli::runInfo(modelDir); });

    auto* tok = app.add_subcommand("tokenize", "Tokens with ids and character spans");
    cli::addModelDirArgument(*tok, modelDir);
    tok->add_option("TEXT", text, "Text to tokenize")->required();
    tok->add_flag("--no-special", noSpecial, "Do not add [CLS]/[SEP] or <s>/</s>");
    commands.emplace_back(tok, [&] { return cli::runTokenize(modelDir, text, !noSpecial); });

    cli::AttentionArgs att;
    commands.emplace_back(cli::addAttentionCommand(app, att),
                          [&] { return cli::runAttention(att); });
    cli::RenderArgs renderArgs;
    commands.emplace_back(cli::addRenderCommand(app, renderArgs),
                          [&] { return cli::runRender(renderArgs); });
    cli::StatsArgs statsArgs;
    commands.emplace_back(cli::addStatsCommand(app, statsArgs),
                          [&] { return cli::runStats(statsArgs); });
    cli::DepsArgs depsArgs;
    commands.emplace_back(cli::addDepsCommand(app, depsArgs),
                          [&] { return cli::runDeps(depsArgs); });
    cli::CorefArgs corefArgs;
    commands.emplace_back(cli::addCorefCommand(app, corefArgs),
                          [&] { return cli::runCoref(corefArgs); });
    cli::PositionsArgs positionsArgs;
    commands.emplace_back(cli::addPositionsCommand(app, positionsArgs),
                          [&] { return cli::runPositions(positionsArgs); });
    cli::SaturationArgs saturationArgs;
    commands.emplace_back(cli::addSaturationCommand(app, saturationArgs),
                          [&] { return cli::runSaturation(saturationArgs); });
    cli::SeriesArgs seriesArgs;
    commands.emplace_back(cli::addSeriesCommand(app, seriesArgs),
                          [&] { return cli::runSeries(seriesArgs); });
    cli::DlaArgs dlaArgs;
    commands.emplace_back(cli::addDlaCommand(app, dlaArgs), [&] { return cli::runDla(dlaArgs); });
    cli::LensArgs lensArgs;
    commands.emplace_back(cli::addLensCommand(app, lensArgs),
                          [&] { return cli::runLens(lensArgs); });
    cli::PatchArgs patchArgs;
    commands.emplace_back(cli::addPatchCommand(app, patchArgs),
                          [&] { return cli::runPatch(patchArgs); });
    cli::CircuitsArgs circuitsArgs;
    commands.emplace_back(cli::addCircuitsCommand(app, circuitsArgs),
                          [&] { return cli::runCircuits(circuitsArgs); });
    cli::GenerateArgs generateArgs;
    commands.emplace_back(cli::addGenerateCommand(app, generateArgs),
                          [&] { return cli::runGenerate(generateArgs); });
    cli::PredictArgs predictArgs;
    commands.emplace_back(cli::addPredictCommand(app, predictArgs),
                          [&] { return cli::runPredict(predictArgs); });
    cli::AblateArgs ablateArgs;
    commands.emplace_back(cli::addAblateCommand(app, ablateArgs),
                          [&] { return cli::runAblate(ablateArgs); });
    cli::ImportanceArgs importanceArgs;
    commands.emplace_back(cli::addImportanceCommand(app, importanceArgs),
                          [&] { return cli::runImportance(importanceArgs); });
    cli::SurveyArgs surveyArgs;
    commands.emplace_back(cli::addSurveyCommand(app, surveyArgs),
                          [&] { return cli::runSurvey(surveyArgs); });
    cli::AttributionArgs attributionArgs;
    commands.emplace_back(cli::addAttributionCommand(app, attributionArgs),
                          [&] { return cli::runAttribution(attributionArgs); });
    cli::CompareModelsArgs compareModelsArgs;
    commands.emplace_back(cli::addCompareModelsCommand(app, compareModelsArgs),
                          [&] { return cli::runCompareModels(compareModelsArgs); });

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
