// The subcommands of attnscope-cli. Each returns the process exit code: 0 success; it throws
// attnscope::Error for data errors, which main turns into exit code 1.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnscope::cli {

struct AttentionArgs {
    std::string modelDir;
    std::optional<std::string> text;
    std::vector<std::int64_t> tokenIds;
    std::string out;
    std::string mask = "default";  // default | none | causal
    int causalOffset = 0;
    std::optional<float> scale;
};

int runInfo(const std::string& modelDir);
int runTokenize(const std::string& modelDir, const std::string& text, bool addSpecial);
int runAttention(const AttentionArgs& args);

}  // namespace attnscope::cli
