// attnscope-cli ablate: ablates heads in one sentence and prints what changed (issue 17,
// methods.md §3 and §11.7): the masked LM's Δ log p at masked positions, or the causal LM's
// Δ NLL, per-position KL and Δp of the clean top token and a logit difference, and the heads
// whose maps changed most (Jensen–Shannon). The clean pass keeps its layer states, so the
// ablated pass restarts at the first ablated layer; both times are printed. --out writes every
// measure at full precision to .csv or .h5 (export/ablation_export.h); its path is checked
// before anything is computed.
// A malformed --heads item is a usage error (exit 2); a head outside the model, a position
// outside the sentence or a piece not in the vocabulary is a data error (exit 1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace attnscope::cli {

struct AblateArgs {
    std::string modelDir;
    std::optional<std::string> text;
    std::vector<std::int64_t> tokenIds;
    std::string heads;          // "3-7,5-1": forward::parseAblationList
    std::string kind = "zero";  // zero | mean | sink
    bool kvGroup = false;       // every LAYER-N names key/value group N
    std::vector<int> maskPositions;
    std::optional<std::string> logitDiff;   // POS:A:B, A and B pieces or #ID
    std::optional<std::string> meanCorpus;  // .txt or .conllu (text::readSentences)
    int top = 10;
    std::optional<std::string> out;  // .csv or .h5
};

CLI::App* addAblateCommand(CLI::App& app, AblateArgs& args);
int runAblate(const AblateArgs& args);

}  // namespace attnscope::cli
