// The target side of an encoder-decoder run (issue 20), shared by attention, render and predict:
// --target TEXT or --target-ids IDS, and (attention, render) --greedy N, which decodes the
// target instead. One-stack models refuse them; encoder-decoder models run the source (the
// sentence options' --text / --token-ids) and the target through analyzeSeq2Seq*.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnscope/analysis/seq2seq_analysis.h"
#include "cli/sentence_input.h"

namespace CLI {
class App;
}

namespace attnscope::cli {

struct TargetArgs {
    std::optional<std::string> target;
    std::vector<std::int64_t> targetIds;
    std::optional<int> greedy;  // decode up to N target tokens

    bool given() const { return target || !targetIds.empty() || greedy; }
};

// Adds --target and --target-ids (exclusive), and --greedy N (excluding both) when `greedy`.
void addTargetOptions(CLI::App& command, TargetArgs& args, bool greedy);

// Loads the model for a command with these sentence and target options: the tokenizer only when
// some text will be tokenized. A target on a model that is not an encoder-decoder is refused
// (InvalidArgument naming the folder and its model type).
std::shared_ptr<const model::Model> loadForTarget(const SentenceArgs& sentence,
                                                  const TargetArgs& target);

// Source and target through the encoder-decoder model `m`. Without a target: --greedy decodes
// one (its ids and pieces printed to stderr); else `requireTarget` makes it an error, and
// otherwise the decoder runs on its start token alone. `options` as runSeq2Seq takes them.
analysis::Seq2SeqAnalysis analyzeSeq2Seq(const model::Model& m, const SentenceArgs& sentence,
                                         const TargetArgs& target,
                                         const forward::ForwardOptions& options,
                                         bool requireTarget);

// For the commands that run one stack (ablate, survey, attribution, importance), right after
// loading: an encoder-decoder model is refused with the command's reason (InvalidArgument
// naming the command, the folder and the model type), where running on would analyse the
// encoder alone. Nothing for one-stack models.
void refuseEncoderDecoder(const std::string& command, const std::string& modelDir,
                          const model::Model& m);

// The decoder start token, as the export records it.
int decoderStartToken(const model::Model& m);

}  // namespace attnscope::cli
