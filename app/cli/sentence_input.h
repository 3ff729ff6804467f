// The sentence options shared by the CLI commands that run the model on one input (attention,
// render, stats, predict, positions): MODEL_DIR, --text or --token-ids, --mask; and running the
// analysis they describe. With --token-ids the tokenizer is never loaded (issue 13). Usage errors
// are CLI11 exceptions (exit code 2); data errors are attnscope::Error (exit 1).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/model/model.h"

namespace CLI {
class App;
}

namespace attnscope::cli {

struct SentenceArgs {
    std::string modelDir;
    std::optional<std::string> text;
    std::vector<std::int64_t> tokenIds;
    std::string mask = "default";  // default | none | causal
    bool int8Activations = false;  // --int8-activations: quantized products as llama.cpp's
};

// Adds MODEL_DIR, --text, --token-ids and --mask to `command`.
void addSentenceOptions(CLI::App& command, SentenceArgs& args);

// Throws CLI::RequiredError unless exactly one of --text and --token-ids was given (CLI11
// itself rejects both at once).
void checkSentenceArgs(const SentenceArgs& args);

struct LoadedSentence {
    std::shared_ptr<const model::Model> model;
    analysis::SentenceAnalysis analysis;
};

// Loads the model (printing its warnings to stderr) and analyzes the sentence. With token ids
// the tokenizer is not loaded, only the vocabulary that labels them. `command` names the command
// in the refusal of encoder-decoder models (refuseEncoderDecoder): the analysis is one stack's.
// keepLayerStates: the pass keeps the residual stream (for the circuit commands).
LoadedSentence analyzeSentence(const std::string& command, const SentenceArgs& args,
                               bool keepLayerStates = false);

// analyzeSentence with the model already loaded.
analysis::SentenceAnalysis analyzeLoaded(const model::Model& m, const SentenceArgs& args,
                                         bool keepLayerStates = false);

// The two halves of analyzeSentence, for commands that run many sentences through one model.
// TokenizerLoading::VocabularyOnly when no text will be tokenized.
std::shared_ptr<const model::Model> loadModelWithWarnings(
    const std::string& modelDir, model::TokenizerLoading tokenizer = model::TokenizerLoading::Full,
    model::ActivationPrecision activations = model::ActivationPrecision::Exact);
// The activation precision --int8-activations asks for.
model::ActivationPrecision activationPrecision(const SentenceArgs& args);
// The forward options --mask asks for (the model's own mask for "default").
forward::ForwardOptions forwardOptions(const SentenceArgs& args);
// --token-ids as the core takes them. InvalidArgument "--token-ids: <id> is not a valid token
// id" outside 0..2^31-1; whether an id is in the model's vocabulary the core checks.
std::vector<std::int32_t> checkedTokenIds(const std::vector<std::int64_t>& ids);
// `text` through `tokenizer` (the model's), checked by analysis::checkTextTokens (no tokens, ids
// beyond vocab_size); errors name --text: "--text: the text gives no tokens ...".
std::vector<tokenize::Token> textTokens(const model::Model& m, const tokenize::Tokenizer& tokenizer,
                                        const std::string& text);
// The pass's warnings (NaN or Inf met), one "attnscope-cli: warning:" line each on stderr.
void printResultWarnings(const forward::ForwardResult& result);

// The model folder's name, for titles: "bert-base-uncased" for "models/bert-base-uncased/".
std::string modelName(const std::string& modelDir);

}  // namespace attnscope::cli
