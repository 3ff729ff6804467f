// attnscope-cli generate: attention while generating (issue 34; forward/generation.h). Continues
// the sentence (--text or --token-ids) by --steps tokens, greedily or sampled (--temperature,
// --top-k, --top-p, --seed, llama.cpp's names and order: top_k, top_p, temperature), with a
// key/value cache; prints each step's token, its probability and the heads that attend most
// sharply (lowest entropy); --out writes every step's row of every head (.csv or .h5,
// generation_export.h). Usage errors exit 2; data errors throw attnscope::Error (exit 1). No Qt.
#pragma once

#include <cstdint>

#include "cli/sentence_input.h"

namespace CLI {
class App;
}

namespace attnscope::cli {

struct GenerateArgs {
    SentenceArgs sentence;
    int steps = 8;
    float temperature = 0.0f;
    int topK = 0;
    float topP = 1.0f;
    std::uint64_t seed = 0;
    std::string out;
};

CLI::App* addGenerateCommand(CLI::App& app, GenerateArgs& args);

int runGenerate(const GenerateArgs& args);

}  // namespace attnscope::cli
