#include "cli/sentence_input.h"

#include <filesystem>
#include <iostream>
#include <limits>

#include <CLI/CLI.hpp>

#include "attnscope/base/error.h"
#include "cli/cli_checks.h"
#include "cli/seq2seq_input.h"

namespace attnscope::cli {

void addSentenceOptions(CLI::App& command, SentenceArgs& args) {
    addModelDirArgument(command, args.modelDir);
    auto* text = command.add_option("--text", args.text, "Input text (needs a tokenizer)");
    auto* ids =
        addIdListOption(command, "--token-ids", args.tokenIds, "Token ids, e.g. 101,7592,102");
    text->excludes(ids);
    command.add_option("--mask", args.mask, "Mask: default (the model's), none, causal")
        ->check(CLI::IsMember({"default", "none", "causal"}));
    command.add_flag("--int8-activations", args.int8Activations,
                     "Quantized GGUF matrices: quantize the activations to 8 bits per block as "
                     "llama.cpp does (faster; about 1-3 % off the exact numbers)");
}

model::ActivationPrecision activationPrecision(const SentenceArgs& args) {
    return args.int8Activations ? model::ActivationPrecision::Int8
                                : model::ActivationPrecision::Exact;
}

void checkSentenceArgs(const SentenceArgs& args) {
    if (!args.text && args.tokenIds.empty()) {
        throw CLI::RequiredError("--text or --token-ids");
    }
}

std::shared_ptr<const model::Model> loadModelWithWarnings(const std::string& modelDir,
                                                          model::TokenizerLoading tokenizer,
                                                          model::ActivationPrecision activations) {
    model::LoadOptions options;
    options.tokenizer = tokenizer;
    options.activations = activations;
    std::shared_ptr<const model::Model> m = model::loadModel(modelDir, options);
    for (const std::string& w : m->warnings) {
        std::cerr << "attnscope-cli: warning: " << w << "\n";
    }
    return m;
}

void printResultWarnings(const forward::ForwardResult& result) {
    for (const std::string& w : result.warnings) {
        std::cerr << "attnscope-cli: warning: " << w << "\n";
    }
}

forward::ForwardOptions forwardOptions(const SentenceArgs& args) {
    forward::ForwardOptions options;
    if (args.mask == "none") {
        options.mask.kind = forward::MaskKind::Bidirectional;
    } else if (args.mask == "causal") {
        options.mask.kind = forward::MaskKind::Causal;
    }
    return options;
}

std::vector<std::int32_t> checkedTokenIds(const std::vector<std::int64_t>& ids) {
    std::vector<std::int32_t> out;
    out.reserve(ids.size());
    for (const std::int64_t id : ids) {
        if (id < 0 || id > std::numeric_limits<std::int32_t>::max()) {
            throw InvalidArgument("--token-ids: " + std::to_string(id) +
                                  " is not a valid token id");
        }
        out.push_back(static_cast<std::int32_t>(id));
    }
    return out;
}

std::vector<tokenize::Token> textTokens(const model::Model& m, const tokenize::Tokenizer& tokenizer,
                                        const std::string& text) {
    return withContext("--text", [&] {
        std::vector<tokenize::Token> tokens = tokenizer.encode(text);
        analysis::checkTextTokens(m, tokens);
        return tokens;
    });
}

analysis::SentenceAnalysis analyzeLoaded(const model::Model& m, const SentenceArgs& args,
                                         bool keepLayerStates) {
    forward::ForwardOptions options = forwardOptions(args);
    options.keepLayerStates = keepLayerStates;
    analysis::SentenceAnalysis a =
        !args.text    ? analysis::analyzeIds(m, checkedTokenIds(args.tokenIds), options)
        : m.tokenizer ? analysis::analyzeTokens(m, *args.text,
                                                textTokens(m, *m.tokenizer, *args.text), options)
                      : analysis::analyzeText(m, *args.text, options);  // its "no tokenizer"
    printResultWarnings(a.forward);
    return a;
}

LoadedSentence analyzeSentence(const std::string& command, const SentenceArgs& args,
                               bool keepLayerStates) {
    LoadedSentence s;
    s.model = loadModelWithWarnings(
        args.modelDir,
        args.text ? model::TokenizerLoading::Full : model::TokenizerLoading::VocabularyOnly,
        activationPrecision(args));
    refuseEncoderDecoder(command, args.modelDir, *s.model);
    s.analysis = analyzeLoaded(*s.model, args, keepLayerStates);
    return s;
}

std::string modelName(const std::string& modelDir) {
    std::filesystem::path p = std::filesystem::path(modelDir).lexically_normal();
    if (p.filename().empty()) {
        p = p.parent_path();  // "models/bert/" ends in an empty name
    }
    const std::string name = p.filename().string();
    return name.empty() || name == "." ? modelDir : name;
}

}  // namespace attnscope::cli
