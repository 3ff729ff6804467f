#include "cli/predict_command.h"

#include <iomanip>
#include <iostream>
#include <utility>

#include <CLI/CLI.hpp>

#include "attnscope/base/error.h"
#include "attnscope/export/csv_writer.h"
#include "attnscope/forward/prediction.h"
#include "attnscope/tokenize/detokenize.h"
#include "cli/cli_checks.h"
#include "cli/seq2seq_command.h"

namespace attnscope::cli {

namespace {

std::vector<int> chosenPositions(const PredictArgs& args, const model::Model& m,
                                 const analysis::SentenceAnalysis& a) {
    std::vector<int> positions = args.positions;
    if (positions.empty() && m.spec.prediction == model::PredictionKind::MaskedLm) {
        positions = forward::maskTokenPositions(m, a.forward.tokenIds);
        if (positions.empty()) {
            std::cerr << "attnscope-cli: no mask token in the input; predicting every position "
                         "(a masked LM mostly copies unmasked tokens)\n";
        }
    }
    return checkedPositions(std::move(positions), a.forward.nTokens, "sentence");
}

}  // namespace

std::vector<int> checkedPositions(std::vector<int> positions, int nTokens,
                                  const std::string& what) {
    if (positions.empty()) {
        for (int i = 0; i < nTokens; ++i) {
            positions.push_back(i);
        }
    }
    for (const int p : positions) {
        if (p < 0 || p >= nTokens) {
            throw InvalidArgument("--position: " + std::to_string(p) + " is outside the " + what +
                                  "'s " + std::to_string(nTokens) + " tokens");
        }
    }
    return positions;
}

PredictionTable::PredictionTable()
    : csv_({"position", "token", "predicts", "rank", "id", "candidate", "probability", "logit"}) {}

void PredictionTable::add(int pos, const std::string& token, const std::string& predicts,
                          const std::vector<forward::TokenPrediction>& top) {
    for (std::size_t r = 0; r < top.size(); ++r) {
        const forward::TokenPrediction& p = top[r];
        std::cout << "      " << r + 1 << ". " << std::left << std::setw(16)
                  << analysis::tokenLabel(p.token) << std::right << std::fixed
                  << std::setprecision(4) << p.probability << "  (id " << p.id << ")\n";
        std::cout.unsetf(std::ios::floatfield);
        csv_.addRow({std::int64_t{pos}, token, predicts, static_cast<std::int64_t>(r + 1),
                     std::int64_t{p.id}, p.token, p.probability, p.logit});
    }
}

void PredictionTable::write(const std::optional<std::string>& csv) const {
    if (csv) {
        csv_.writeFile(*csv);
        std::cerr << "attnscope-cli: wrote " << csv_.rowCount() << " predictions to " << *csv
                  << "\n";
    }
}

namespace {

// --continue: the greedy continuation's ids on one line ("ids: 5 17 3"), then its text when the
// model has a tokenizer.
int printContinuation(const model::Model& m, const analysis::SentenceAnalysis& a, int tokens) {
    const std::vector<std::int32_t>& prompt = a.forward.tokenIds;
    const std::vector<std::int32_t> added = forward::greedyContinuation(m, prompt, tokens);
    std::cout << "ids:";
    for (const std::int32_t id : added) {
        std::cout << " " << id;
    }
    std::cout << "\n";
    if (m.tokenizer) {
        std::cout << "text: " << tokenize::decodeIds(*m.tokenizer, added) << "\n";
    }
    if (static_cast<int>(added.size()) < tokens) {
        std::cerr << "attnscope-cli: stopped after " << added.size()
                  << " tokens: the model's longest sequence is " << m.spec.maxTokens() << "\n";
    }
    return 0;
}

}  // namespace

CLI::App* addPredictCommand(CLI::App& app, PredictArgs& args) {
    auto* predict = app.add_subcommand(
        "predict",
        "Top-k predicted tokens: next token at every position (causal LM) or the filler of each "
        "[MASK]/<mask> (masked LM)");
    addSentenceOptions(*predict, args.sentence);
    predict
        ->add_option("--position", args.positions,
                     "Token position(s) to predict at (0-based; repeatable or comma list)")
        ->delimiter(',');
    predict->add_option("--top", args.top, "How many candidates per position")
        ->check(CLI::Range(1, 1000));
    predict->add_option("--csv", args.csv, "Also write the table to this CSV file");
    predict
        ->add_option("--continue", args.continueTokens,
                     "Instead: greedy continuation of this many tokens (causal LM), printed as "
                     "ids and text")
        ->check(CLI::Range(1, 100000));
    addTargetOptions(*predict, args.target, /*greedy=*/false);
    predict->callback([&args] { checkSentenceArgs(args.sentence); });
    return predict;
}

int runPredict(const PredictArgs& args) {
    checkOutput("--csv", args.csv.value_or(""));
    const auto model = loadForTarget(args.sentence, args.target);
    const model::Model& m = *model;
    if (m.isEncoderDecoder()) {
        return runSeq2SeqPredict(args, m);
    }
    const analysis::SentenceAnalysis a = analyzeLoaded(m, args.sentence);
    if (!forward::hasPredictionHead(m)) {
        throw InvalidArgument(args.sentence.modelDir +
                              ": this checkpoint has no prediction head (MLM or LM head "
                              "tensors), so it cannot predict tokens");
    }
    const bool causal = m.spec.prediction == model::PredictionKind::CausalLm;
    if (args.continueTokens > 0) {
        return printContinuation(m, a, args.continueTokens);
    }
    PredictionTable table;
    std::cout << "# " << forward::predictionKindName(m) << ": "
              << (causal ? "next token after each position" : "token at each position") << "\n";
    for (const int pos : chosenPositions(args, m, a)) {
        const std::string token = a.label(pos);
        std::cout << std::setw(4) << pos << "  " << token << "\n";
        table.add(pos, token, causal ? "next" : "this",
                  forward::topPredictions(m, a.forward, pos, args.top));
    }
    table.write(args.csv);
    return 0;
}

}  // namespace attnscope::cli
