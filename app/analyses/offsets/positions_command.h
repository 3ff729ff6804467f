// attnscope-cli positions: which heads are positional (Voita et al. 2019, methods.md §2.1–2.2)
// over one sentence (--text, --token-ids) or a corpus (--sentences FILE, .txt or CoNLL-U). For
// every layer × head it prints r* (the offset key − query most often holding the row maximum),
// its frequency, the verdict (frequency >= --threshold), the confidence (mean row maximum) and
// the mean attention at offsets −2..+2; --csv writes the same table. Counts are summed over the
// corpus (core/include/attnscope/analysis/relative_position.h). Usage errors are CLI11
// exceptions (exit 2); data errors throw attnscope::Error (exit 1). No Qt. With --sentences and
// --shard K/N it sums only the sentences i with i mod N == K into a partial result (--out
// .part.json) that `attnscope-cli merge` adds up; the sums are exact, so the merged table and
// CSV equal one run's byte for byte.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "attnscope/export/partial_result.h"
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
    std::string shard;  // "K/N" (with --sentences): this shard's sentences only
    std::string out;    // with --shard: the partial result (.part.json)
};

CLI::App* addPositionsCommand(CLI::App& app, PositionsArgs& args);

int runPositions(const PositionsArgs& args);
// The PartMerger of positions (cli/merge_command.h): prints the table and writes the CSV.
int mergePositions(const std::vector<exporting::PartialResult>& parts, const std::string& out);

}  // namespace attnscope::cli
