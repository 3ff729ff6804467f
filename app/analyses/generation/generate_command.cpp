#include "analyses/generation/generate_command.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <iostream>
#include <numeric>

#include <CLI/CLI.hpp>

#include "attnscope/base/error.h"
#include "attnscope/export/generation_export.h"
#include "attnscope/forward/prediction.h"
#include "cli/cli_checks.h"
#include "cli/seq2seq_input.h"

namespace attnscope::cli {

namespace {

constexpr int kSharpest = 3;  // heads named per step

std::vector<std::int32_t> promptOf(const model::Model& m, const SentenceArgs& args) {
    if (!args.text) {
        return withContext("--token-ids", [&] { return checkedTokenIds(args.tokenIds); });
    }
    if (!m.tokenizer) {
        throw InvalidArgument("--text: the model has no tokenizer; give --token-ids");
    }
    std::vector<std::int32_t> ids;
    for (const tokenize::Token& t : textTokens(m, *m.tokenizer, *args.text)) {
        ids.push_back(t.id);
    }
    return ids;
}

std::string samplerText(const GenerateArgs& a) {
    if (a.temperature <= 0.0f) {
        return "greedy";
    }
    std::array<char, 128> text{};
    std::snprintf(text.data(), text.size(), "temperature %g, top_k %d, top_p %g, seed %llu",
                  static_cast<double>(a.temperature), a.topK, static_cast<double>(a.topP),
                  static_cast<unsigned long long>(a.seed));
    return text.data();
}

// "1-3 0.02, 0-1 0.10, ...": the heads whose row is most concentrated (lowest entropy).
std::string sharpest(const forward::Generation& g, const forward::GenerationStep& step) {
    std::vector<std::size_t> order(step.entropy.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return step.entropy[a] < step.entropy[b];
    });
    std::string text;
    for (std::size_t k = 0; k < std::min<std::size_t>(kSharpest, order.size()); ++k) {
        const std::size_t i = order[k];
        const std::size_t heads = static_cast<std::size_t>(g.nHeads);
        const float* row = step.rows.data() + i * static_cast<std::size_t>(step.keys);
        const auto key = std::max_element(row, row + step.keys) - row;
        std::array<char, 64> cell{};
        std::snprintf(cell.data(), cell.size(), "%s%zu-%zu->%td", text.empty() ? "" : ", ",
                      i / heads, i % heads, key);
        text += cell.data();
    }
    return text;
}

}  // namespace

CLI::App* addGenerateCommand(CLI::App& app, GenerateArgs& args) {
    auto* cmd = app.add_subcommand(
        "generate", "Continue a sentence and keep every step's attention row of every head");
    addSentenceOptions(*cmd, args.sentence);
    cmd->add_option("--steps", args.steps, "Tokens to generate")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    cmd->add_option("--temperature", args.temperature, "0: greedy (default); else sampled")
        ->check(finiteRange(0.0, 100.0));
    cmd->add_option("--top-k", args.topK, "Keep the k most likely tokens (0: off)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--top-p", args.topP, "Keep the smallest set reaching this mass (1: off)")
        ->check(finiteRange(1e-6, 1.0));
    cmd->add_option("--seed", args.seed, "Seed of the sampler")->check(wholeNumber64());
    cmd->add_option("--out", args.out, "Write every step's rows (.csv or .h5)")
        ->check(csvOrH5Output());
    cmd->callback([&args] { checkSentenceArgs(args.sentence); });
    return cmd;
}

int runGenerate(const GenerateArgs& args) {
    checkOutput("--out", args.out);
    const auto model =
        loadModelWithWarnings(args.sentence.modelDir,
                              args.sentence.text ? model::TokenizerLoading::Full
                                                 : model::TokenizerLoading::VocabularyOnly,
                              activationPrecision(args.sentence));
    const model::Model& m = *model;
    refuseEncoderDecoder("generate", args.sentence.modelDir, m);
    const forward::SamplerSettings sampler{args.temperature, args.topK, args.topP, args.seed};
    const forward::Generation g =
        forward::generate(m, promptOf(m, args.sentence), args.steps, sampler);
    exporting::GenerationRun run{args.sentence.modelDir, samplerText(args), {}, &g};
    std::cout << "# " << g.prompt.size() << " prompt tokens, " << g.steps.size() << " steps ("
              << run.sampler << "); sharpest heads: layer-head->key they look at most\n";
    std::cout << "step  token                 p      sharpest heads\n";
    for (std::size_t s = 0; s < g.steps.size(); ++s) {
        const forward::GenerationStep& step = g.steps[s];
        run.pieces.push_back(forward::tokenPiece(m, step.token));
        std::array<char, 96> line{};
        std::snprintf(line.data(), line.size(), "%4zu  %-18s %6.3f  ", s,
                      ("'" + run.pieces.back() + "'").c_str(),
                      static_cast<double>(step.probability));
        std::cout << line.data() << sharpest(g, step) << "\n";
    }
    if (!args.out.empty()) {
        isH5Path(args.out) ? exporting::writeGenerationHdf5(args.out, run)
                           : exporting::writeGenerationCsv(args.out, run);
        std::cerr << "attnscope-cli: wrote " << args.out << "\n";
    }
    return 0;
}

}  // namespace attnscope::cli
