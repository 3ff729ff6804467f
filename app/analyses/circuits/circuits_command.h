// attnscope-cli circuits: what each head can do from its weights alone (issue 34;
// analysis/weight_circuits.h): per head the top QK and OV singular values, the OV copying score
// and the positional previous-token score; then the strongest Q-, K- and V-composition pairs
// against the random baseline. --out writes every number (.csv or .h5, circuits_export.h).
// Usage errors exit 2; data errors throw attnscope::Error (exit 1). No Qt.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace attnscope::cli {

struct CircuitsArgs {
    std::string modelDir;
    int top = 8;
    std::string out;
};

CLI::App* addCircuitsCommand(CLI::App& app, CircuitsArgs& args);

int runCircuits(const CircuitsArgs& args);

}  // namespace attnscope::cli
