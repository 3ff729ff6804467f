// attnscope-cli positions: which heads are positional (Voita et al. 2019, methods.md §2.1–2.2)
// over one sentence (--text, --token-ids) or a corpus (--sentences FILE, .txt or CoNLL-U). For
// every layer × head it prints r* (the offset key − query most often holding the row maximum),
// its frequency, the verdict (frequency >= --threshold), the confidence (mean row maximum) and
// the mean attention at offsets −2..+2; --csv writes the same table. Counts are summed over the
// corpus (core/include/attnscope/analysis/relative_position.h). Usage errors are CLI11
// exceptions (exit 2); data errors throw attnscope::Error (exit 1). No Qt.
#pragma once

#include <optional>
#include <string>

#include "cli/sentence_input.h"

namespace CLI {
class App;
}

namespace attnscope::cli {

struct PositionsArgs {
    SentenceArgs sentence;
    std::string sentencesFile;  // one sentence per line, or a CoNLL-U treebank
    std::optional<int> maxSentences;
    bool includeSpecial = false;   // count [CLS]/[SEP]/<s>/</s> as queries too
    bool skipSpecialKeys = false;  // leave special tokens out as keys as well
    double threshold = 0.9;
    std::string csv;
};

CLI::App* addPositionsCommand(CLI::App& app, PositionsArgs& args);

int runPositions(const PositionsArgs& args);

}  // namespace attnscope::cli
