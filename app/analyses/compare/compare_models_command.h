// attnscope-cli compare-models (issue 32): one sentence through two models with the same layers
// and heads — a model's F16 and Q4_K_M files, its safetensors folder and its GGUF — and how far
// each head's attention moved (analysis/model_compare.h: Jensen–Shannon divergence per query
// row, Clark et al.'s smoothing, summed and averaged). Prints the most moved heads; --csv
// writes every head. Text is tokenized by both models and must give the same ids (else give
// --token-ids). Two models that differ in layers or heads are a data error (exit 1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace attnscope::cli {

struct CompareModelsArgs {
    std::string modelA;
    std::string modelB;
    std::optional<std::string> text;
    std::vector<std::int64_t> tokenIds;
    int top = 10;
    std::optional<std::string> csv;
};

CLI::App* addCompareModelsCommand(CLI::App& app, CompareModelsArgs& args);

int runCompareModels(const CompareModelsArgs& args);

}  // namespace attnscope::cli
