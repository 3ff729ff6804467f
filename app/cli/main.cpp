// attnscope-cli: the core from the command line. Exit codes: 0 success, 1 data error (one line
// on stderr), 2 usage error.
#include <iostream>
#include <new>

#include <CLI/CLI.hpp>

#include "attnscope/base/cancel.h"
#include "attnscope/base/error.h"
#include "attnscope/base/version.h"
#include "ablate_command.h"
#include "commands.h"
#include "coref_command.h"
#include "deps_command.h"
#include "importance_command.h"
#include "positions_command.h"
#include "predict_command.h"
#include "render_command.h"
#include "stats_command.h"

int main(int argc, char** argv) {
    using namespace attnscope;
    CLI::App app{"AttnScope command-line tool: inspect models and export every attention head"};
    app.set_version_flag("--version", std::string(version()));
    app.require_subcommand(1);
    std::string modelDir;
    std::string text;
    bool noSpecial = false;

    auto* info =
        app.add_subcommand("info", "Architecture, sizes, parameter count, dtype, tokenizer");
    info->add_option("MODEL_DIR", modelDir, "Hugging Face model folder")->required();

    auto* tok = app.add_subcommand("tokenize", "Tokens with ids and character spans");
    tok->add_option("MODEL_DIR", modelDir, "Hugging Face model folder")->required();
    tok->add_option("TEXT", text, "Text to tokenize")->required();
    tok->add_flag("--no-special", noSpecial, "Do not add [CLS]/[SEP] or <s>/</s>");

    cli::AttentionArgs att;
    cli::addAttentionCommand(app, att);

    cli::RenderArgs renderArgs;
    auto* render = cli::addRenderCommand(app, renderArgs);
    cli::StatsArgs statsArgs;
    auto* stats = cli::addStatsCommand(app, statsArgs);
    cli::DepsArgs depsArgs;
    auto* deps = cli::addDepsCommand(app, depsArgs);
    cli::CorefArgs corefArgs;
    auto* coref = cli::addCorefCommand(app, corefArgs);
    cli::PositionsArgs positionsArgs;
    auto* positions = cli::addPositionsCommand(app, positionsArgs);
    cli::PredictArgs predictArgs;
    auto* predict = cli::addPredictCommand(app, predictArgs);
    cli::AblateArgs ablateArgs;
    auto* ablate = cli::addAblateCommand(app, ablateArgs);
    cli::ImportanceArgs importanceArgs;
    auto* importance = cli::addImportanceCommand(app, importanceArgs);

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
    try {
        if (info->parsed()) {
            return cli::runInfo(modelDir);
        }
        if (tok->parsed()) {
            return cli::runTokenize(modelDir, text, !noSpecial);
        }
        if (render->parsed()) {
            return cli::runRender(renderArgs);
        }
        if (stats->parsed()) {
            return cli::runStats(statsArgs);
        }
        if (deps->parsed()) {
            return cli::runDeps(depsArgs);
        }
        if (coref->parsed()) {
            return cli::runCoref(corefArgs);
        }
        if (positions->parsed()) {
            return cli::runPositions(positionsArgs);
        }
        if (predict->parsed()) {
            return cli::runPredict(predictArgs);
        }
        if (ablate->parsed()) {
            return cli::runAblate(ablateArgs);
        }
        if (importance->parsed()) {
            return cli::runImportance(importanceArgs);
        }
        return cli::runAttention(att);
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
