#include "analyses/compare/compare_models_command.h"

#include <iomanip>
#include <iostream>

#include <CLI/CLI.hpp>

#include "attnscope/analysis/model_compare.h"
#include "attnscope/base/error.h"
#include "attnscope/export/csv_writer.h"
#include "attnscope/forward/forward_pass.h"
#include "cli/cli_checks.h"
#include "cli/sentence_input.h"

namespace attnscope::cli {

namespace {

// The ids both models run: --token-ids as given, or the text through each model's tokenizer,
// which must agree.
std::vector<std::int32_t> sharedIds(const CompareModelsArgs& args, const model::Model& a,
                                    const model::Model& b) {
    if (!args.text) {
        return checkedTokenIds(args.tokenIds);
    }
    std::vector<std::vector<std::int32_t>> both;
    for (const model::Model* m : {&a, &b}) {
        if (!m->tokenizer) {
            throw InvalidArgument(m->dir.string() + ": no tokenizer; use --token-ids");
        }
        both.push_back(tokenize::ids(textTokens(*m, *m->tokenizer, *args.text)));
    }
    if (both[0] != both[1]) {
        throw InvalidArgument("--text: the two models tokenize it differently (" +
                              std::to_string(both[0].size()) + " and " +
                              std::to_string(both[1].size()) +
                              " tokens); compare models that share a tokenizer, or give "
                              "--token-ids");
    }
    return both[0];
}

void writeCsv(const analysis::ModelComparison& c, const std::string& path) {
    exporting::CsvWriter csv(
        {"layer", "head", "rank", "jsd_total", "jsd_mean", "jsd_max_row", "max_row"});
    const std::vector<analysis::HeadDivergence> ranked = c.ranked();
    std::vector<std::int64_t> rankOf(c.heads.size());
    for (std::size_t r = 0; r < ranked.size(); ++r) {
        rankOf[static_cast<std::size_t>(headIndex(ranked[r].head, c.nHeads))] =
            static_cast<std::int64_t>(r + 1);
    }
    for (std::size_t i = 0; i < c.heads.size(); ++i) {
        const analysis::HeadDivergence& d = c.heads[i];
        csv.addRow({std::int64_t{d.head.layer}, std::int64_t{d.head.head}, rankOf[i], d.total,
                    d.mean, d.maxRow, std::int64_t{d.maxRowIndex}});
    }
    csv.writeFile(path);
    std::cerr << "attnscope-cli: wrote " << csv.rowCount() << " heads to " << path << "\n";
}

}  // namespace

CLI::App* addCompareModelsCommand(CLI::App& app, CompareModelsArgs& args) {
    auto* cmd = app.add_subcommand(
        "compare-models",
        "One sentence through two models with the same layers and heads (e.g. F16 and Q4_K_M): "
        "the Jensen-Shannon divergence of every head's attention between them");
    cmd->add_option("MODEL_A", args.modelA, "Hugging Face model folder, or a .gguf file")
        ->required();
    cmd->add_option("MODEL_B", args.modelB, "The model to compare with it")->required();
    auto* text = cmd->add_option("--text", args.text, "Text to run (tokenized by both models)");
    cmd->add_option("--token-ids", args.tokenIds, "Token ids instead of text (comma list)")
        ->delimiter(',')
        ->excludes(text);
    cmd->add_option("--top", args.top, "How many of the most moved heads to print")
        ->check(CLI::Range(1, 100000));
    cmd->add_option("--csv", args.csv, "Write every head's divergences to this CSV file");
    cmd->callback([&args] {
        if (!args.text && args.tokenIds.empty()) {
            throw CLI::RequiredError("--text or --token-ids");
        }
    });
    return cmd;
}

int runCompareModels(const CompareModelsArgs& args) {
    checkOutput("--csv", args.csv.value_or(""));
    const auto loading =
        args.text ? model::TokenizerLoading::Full : model::TokenizerLoading::VocabularyOnly;
    const auto a = loadModelWithWarnings(args.modelA, loading);
    const auto b = loadModelWithWarnings(args.modelB, loading);
    const std::vector<std::int32_t> ids = sharedIds(args, *a, *b);
    const forward::ForwardResult ra = forward::runForward(*a, {ids, {}});
    const forward::ForwardResult rb = forward::runForward(*b, {ids, {}});
    const analysis::ModelComparison c = analysis::compareModels(*a, ra, *b, rb);
    std::cout << "# A: " << args.modelA << " (" << a->storedDtypes << ")\n"
              << "# B: " << args.modelB << " (" << b->storedDtypes << ")\n"
              << "# " << c.nTokens << " tokens; Jensen-Shannon divergence per head (nats, "
              << "Clark et al.'s smoothing), most moved first\n"
              << "rank\thead\ttotal\tmean per row\tmax row (query)\n";
    const std::vector<analysis::HeadDivergence> ranked = c.ranked();
    for (std::size_t r = 0; r < ranked.size() && r < static_cast<std::size_t>(args.top); ++r) {
        const analysis::HeadDivergence& d = ranked[r];
        std::cout << r + 1 << "\t" << d.head.toString() << "\t" << std::setprecision(6) << d.total
                  << "\t" << d.mean << "\t" << d.maxRow << " (" << d.maxRowIndex << ")\n";
    }
    if (args.csv) {
        writeCsv(c, *args.csv);
    }
    return 0;
}

}  // namespace attnscope::cli
