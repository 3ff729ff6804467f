// attnscope-cli saturation: the saturation lab's per-head statistics (analysis/saturation.h)
// over one sentence (--text, --token-ids) or a corpus (--sentences FILE, .txt or CoNLL-U), for
// the model as it is and, with --what-if, with its QK-norm, soft-cap or scale changed in every
// layer (attention_what_if.h's syntax: qk-norm=off|unit|model, softcap=off|C|model,
// scale=inv-sqrt-dk|S|model). Prints one line per head and setting; --out writes CSV or HDF5
// (export/saturation_export.h). Usage errors are CLI11 exceptions (exit 2); data errors throw
// attnscope::Error (exit 1). No Qt. With --sentences and --shard K/N it pools only the
// sentences i with i mod N == K into a partial result (--out .part.json) that `attnscope-cli
// merge` adds up into the table and file one run prints and writes (the sums are exact).
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

struct SaturationArgs {
    SentenceArgs sentence;
    std::string sentencesFile;  // one sentence per line, or a CoNLL-U treebank
    std::optional<int> maxSentences;
    std::string whatIf;  // empty: the model only
    std::string out;     // .csv or .h5; empty: the table on stdout only; .part.json with --shard
    std::string shard;   // "K/N" (with --sentences): this shard's sentences only
};

CLI::App* addSaturationCommand(CLI::App& app, SaturationArgs& args);

int runSaturation(const SaturationArgs& args);
// The PartMerger of saturation (cli/merge_command.h): prints the table and writes --out.
int mergeSaturation(const std::vector<exporting::PartialResult>& parts, const std::string& out);

}  // namespace attnscope::cli
