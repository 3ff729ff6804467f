// attnscope-cli saturation: the saturation lab's per-head statistics (analysis/saturation.h)
// over one sentence (--text, --token-ids) or a corpus (--sentences FILE, .txt or CoNLL-U), for
// the model as it is and, with --what-if, with its QK-norm, soft-cap or scale changed in every
// layer (attention_what_if.h's syntax: qk-norm=off|unit|model, softcap=off|C|model,
// scale=inv-sqrt-dk|S|model). Prints one line per head and setting; --out writes CSV or HDF5
// (export/saturation_export.h). Usage errors are CLI11 exceptions (exit 2); data errors throw
// attnscope::Error (exit 1). No Qt.
#pragma once

#include <optional>
#include <string>

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
    std::string out;     // .csv or .h5; empty: the table on stdout only
};

CLI::App* addSaturationCommand(CLI::App& app, SaturationArgs& args);

int runSaturation(const SaturationArgs& args);

}  // namespace attnscope::cli
