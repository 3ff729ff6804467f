// attnscope-cli render: a publication figure (PNG, SVG or PDF by extension) of one head
// (--layer/--head), a list of heads (--heads 0-1,2-3) or every head (--grid), drawn by
// render/figure.h; for an encoder-decoder model, maps of one kind (--kind encoder, decoder or
// cross, whose columns are the source tokens). The only command that starts Qt's GUI layer, and
// only after the model ran: a QGuiApplication on the offscreen platform, for fonts, so no display
// is needed. Usage errors (bad head list, extension, size) are CLI11 exceptions (exit code 2); data
// errors throw attnscope::Error (exit 1).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "attnscope/base/head_id.h"
#include "cli/sentence_input.h"
#include "cli/seq2seq_input.h"

namespace CLI {
class App;
}

namespace attnscope::cli {

struct RenderArgs {
    SentenceArgs sentence;
    std::string out;
    std::optional<int> layer;
    std::optional<int> head;
    std::string heads;  // "L-H,L-H"
    bool grid = false;
    int width = 1600;
    int height = 1400;
    int dpi = 200;
    std::string colormap = "viridis";
    std::string scaling = "linear";
    // Encoder-decoder models: the target, and which kind of map to draw (default cross).
    TargetArgs target;
    std::optional<std::string> kind;
};

CLI::App* addRenderCommand(CLI::App& app, RenderArgs& args);

int runRender(const RenderArgs& args);

// "0-1,2-3" -> {{0, 1}, {2, 3}} (layer-head, 0-based, as HeadId::toString writes them).
// Throws CLI::ValidationError naming the bad item.
std::vector<HeadId> parseHeadList(const std::string& text);

}  // namespace attnscope::cli
