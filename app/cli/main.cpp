// attnscope-cli: the core from the command line. Exit codes: 0 success, 1 data error (one line
// on stderr), 2 usage error.
#include <cmath>
#include <iostream>
#include <new>

#include <CLI/CLI.hpp>

#include "attnscope/base/error.h"
#include "attnscope/base/version.h"
#include "commands.h"
#include "deps_command.h"
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
    cli::AttentionArgs att;

    auto* info =
        app.add_subcommand("info", "Architecture, sizes, parameter count, dtype, tokenizer");
    info->add_option("MODEL_DIR", modelDir, "Hugging Face model folder")->required();

    auto* tok = app.add_subcommand("tokenize", "Tokens with ids and character spans");
    tok->add_option("MODEL_DIR", modelDir, "Hugging Face model folder")->required();
    tok->add_option("TEXT", text, "Text to tokenize")->required();
    tok->add_flag("--no-special", noSpecial, "Do not add [CLS]/[SEP] or <s>/</s>");

    auto* attn = app.add_subcommand("attention", "Run the model and write every head to HDF5");
    attn->add_option("MODEL_DIR", att.modelDir, "Hugging Face model folder")->required();
    auto* textOpt = attn->add_option("--text", att.text, "Input text (needs a tokenizer)");
    auto* idsOpt = attn->add_option("--token-ids", att.tokenIds, "Token ids, e.g. 101,7592,102")
                       ->delimiter(',');
    textOpt->excludes(idsOpt);
    attn->add_option("--out", att.out, "Output file (.h5)")->required();
    attn->add_option("--mask", att.mask, "Mask: default (the model's), none, causal")
        ->check(CLI::IsMember({"default", "none", "causal"}));
    attn->add_option("--causal-offset", att.causalOffset,
                     "Causal offset: query i sees key j iff j <= i + offset");
    attn->add_option("--scale", att.scale, "Logit scale (default 1/sqrt(d_k))")
        ->check(CLI::Validator(
            [](const std::string& value) {
                float v = 0;
                const bool finite = CLI::detail::lexical_cast(value, v) && std::isfinite(v);
                return finite ? std::string() : "a finite number is needed, not " + value;
            },
            "FINITE"));

    cli::RenderArgs renderArgs;
    auto* render = cli::addRenderCommand(app, renderArgs);
    cli::StatsArgs statsArgs;
    auto* stats = cli::addStatsCommand(app, statsArgs);
    cli::DepsArgs depsArgs;
    auto* deps = cli::addDepsCommand(app, depsArgs);
    cli::PositionsArgs positionsArgs;
    auto* positions = cli::addPositionsCommand(app, positionsArgs);
    cli::PredictArgs predictArgs;
    auto* predict = cli::addPredictCommand(app, predictArgs);

    try {
        app.parse(argc, argv);
        if (attn->parsed() && !att.text && att.tokenIds.empty()) {
            throw CLI::RequiredError("attention needs --text or --token-ids");
        }
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
        if (positions->parsed()) {
            return cli::runPositions(positionsArgs);
        }
        if (predict->parsed()) {
            return cli::runPredict(predictArgs);
        }
        return cli::runAttention(att);
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
