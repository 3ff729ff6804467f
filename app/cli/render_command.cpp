#include "cli/render_command.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <QGuiApplication>

#include "attnscope/analysis/seq2seq_analysis.h"
#include "attnscope/base/error.h"
#include "cli/cli_checks.h"
#include "render/figure.h"
#include "render/figure_file.h"

namespace attnscope::cli {

namespace {

// Qt needs an application object for fonts. The offscreen platform is forced rather than
// taken from QT_QPA_PLATFORM: writing a file never needs a display, and a platform inherited
// from a desktop session (xcb, wayland) would fail over ssh or in a batch job.
class OffscreenGui {
public:
    OffscreenGui() {
        if (QCoreApplication::instance() == nullptr) {
            m_app = std::make_unique<QGuiApplication>(m_argc, m_argv);
        }
    }

private:
    char m_name[14] = "attnscope-cli";
    char m_platformFlag[10] = "-platform";
    char m_platform[10] = "offscreen";
    char* m_argv[4] = {m_name, m_platformFlag, m_platform, nullptr};
    int m_argc = 3;  // QGuiApplication keeps references to argc and argv: they live here
    std::unique_ptr<QGuiApplication> m_app;
};

void checkRenderArgs(const RenderArgs& args) {
    checkSentenceArgs(args.sentence);
    const int choices =
        (args.layer || args.head ? 1 : 0) + (args.heads.empty() ? 0 : 1) + (args.grid ? 1 : 0);
    if (choices != 1) {
        throw CLI::ValidationError(
            "render", "choose the heads with exactly one of --layer/--head, --heads, --grid");
    }
    if (args.layer.has_value() != args.head.has_value()) {
        throw CLI::RequiredError("--layer and --head go together");
    }
    if (!args.heads.empty()) {
        parseHeadList(args.heads);
    }
    std::string suffix = std::filesystem::path(args.out).extension().string();
    std::transform(suffix.begin(), suffix.end(), suffix.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (suffix != ".png" && suffix != ".svg" && suffix != ".pdf") {
        throw CLI::ValidationError("--out", "'" + args.out +
                                                "': the figure format comes from the "
                                                "extension: .png, .svg or .pdf");
    }
}

render::FigureOptions figureOptions(const RenderArgs& args) {
    render::FigureOptions o;
    o.pixelSize = QSize(args.width, args.height);
    o.dpi = args.dpi;
    render::colormapFromName(QString::fromStdString(args.colormap), &o.style.colormap);
    render::scalingFromName(QString::fromStdString(args.scaling), &o.style.scaling);
    o.modelName = QString::fromStdString(modelName(args.sentence.modelDir));
    return o;
}

forward::AttentionKind kindOf(const std::string& name) {
    if (name == "encoder") {
        return forward::AttentionKind::Encoder;
    }
    return name == "decoder" ? forward::AttentionKind::Decoder : forward::AttentionKind::Cross;
}

// The maps to draw: the sentence's, or for an encoder-decoder model those of --kind (cross by
// default), with the row labels the head view gives them.
struct RenderInput {
    analysis::SentenceAnalysis analysis;
    QStringList rowLabels;  // cross-attention: "→ piece", the token each decoder row produces
};

RenderInput analyzeForRender(const RenderArgs& args) {
    const auto m = loadForTarget(args.sentence, args.target);
    if (!m->isEncoderDecoder()) {
        if (args.kind) {
            throw InvalidArgument(args.sentence.modelDir + ": --kind " + *args.kind +
                                  " needs an encoder-decoder model (T5, BART, mBART, Marian); "
                                  "this " +
                                  m->spec.modelType + " model has a single stack");
        }
        return {analyzeLoaded(*m, args.sentence), {}};
    }
    analysis::Seq2SeqAnalysis a =
        analyzeSeq2Seq(*m, args.sentence, args.target, forwardOptions(args.sentence), true);
    const forward::AttentionKind kind = kindOf(args.kind.value_or("cross"));
    printResultWarnings(a.of(kind).forward);
    switch (kind) {
        case forward::AttentionKind::Encoder:
            return {std::move(a.encoder), {}};
        case forward::AttentionKind::Decoder:
            return {std::move(a.decoder), {}};
        case forward::AttentionKind::Cross:
            break;
    }
    RenderInput in{std::move(a.cross), {}};
    if (a.targetTokens.size() == static_cast<std::size_t>(in.analysis.forward.nTokens)) {
        for (int t = 0; t < in.analysis.forward.nTokens; ++t) {
            in.rowLabels << QString::fromStdString(a.targetLabel(t));
        }
    }
    return in;
}

std::vector<HeadId> selectedHeads(const RenderArgs& args) {
    if (args.layer && args.head) {
        return {{*args.layer, *args.head}};
    }
    return args.grid ? std::vector<HeadId>{} : parseHeadList(args.heads);
}

}  // namespace

std::vector<HeadId> parseHeadList(const std::string& text) {
    try {
        return attnscope::parseHeadList(text);
    } catch (const InvalidArgument& e) {
        throw CLI::ValidationError("--heads", e.what());
    }
}

CLI::App* addRenderCommand(CLI::App& app, RenderArgs& args) {
    auto* render =
        app.add_subcommand("render", "Draw heads as a publication figure (.png, .svg or .pdf)");
    addSentenceOptions(*render, args.sentence);
    render->add_option("--out", args.out, "Output file: .png, .svg or .pdf")->required();
    render->add_option("--layer", args.layer, "Layer of the head to draw (0-based)")
        ->check(CLI::NonNegativeNumber);
    render->add_option("--head", args.head, "Head within the layer (0-based)")
        ->check(CLI::NonNegativeNumber);
    render->add_option("--heads", args.heads, "Several heads as LAYER-HEAD pairs, e.g. 0-1,2-3");
    render->add_flag("--grid", args.grid, "Every head: a layers x heads grid");
    const auto pixels = CLI::Range(render::kMinFigurePixels, render::kMaxFigurePixels);
    render->add_option("--width", args.width, "Width in pixels (PNG; sets the page size too)")
        ->check(pixels)
        ->capture_default_str();
    render->add_option("--height", args.height, "Height in pixels")
        ->check(pixels)
        ->capture_default_str();
    render->add_option("--dpi", args.dpi, "Dots per inch: width / dpi is the size in inches")
        ->check(CLI::Range(render::kMinFigureDpi, render::kMaxFigureDpi))
        ->capture_default_str();
    render->add_option("--colormap", args.colormap, "Colour map")
        ->check(CLI::IsMember({"viridis", "magma"}))
        ->capture_default_str();
    render->add_option("--scaling", args.scaling, "Colour scaling")
        ->check(CLI::IsMember({"linear", "log", "per-row"}))
        ->capture_default_str();
    addTargetOptions(*render, args.target, /*greedy=*/true);
    render
        ->add_option("--kind", args.kind,
                     "Encoder-decoder models: encoder, decoder or cross (the default) attention")
        ->check(CLI::IsMember({"encoder", "decoder", "cross"}));
    render->callback([&args] { checkRenderArgs(args); });
    return render;
}

int runRender(const RenderArgs& args) {
    checkOutput("--out", args.out);
    // The model runs before Qt starts, so data errors never depend on the GUI layer.
    const RenderInput input = analyzeForRender(args);
    const analysis::SentenceAnalysis& analysis = input.analysis;
    const std::vector<HeadId> heads = selectedHeads(args);  // empty: the whole grid
    render::checkFigureHeads(analysis, heads);
    const OffscreenGui gui;
    render::FigureOptions options = figureOptions(args);
    options.rowLabels = input.rowLabels;
    const QString out = QString::fromStdString(args.out);
    if (args.layer && args.head) {
        render::saveHeadFigure(out, analysis, heads.front(), options);
    } else {
        render::saveHeadsFigure(out, analysis, heads, options);
    }
    std::cerr << "attnscope-cli: wrote " << args.out << " (" << args.width << "x" << args.height
              << " px at " << args.dpi << " dpi)\n";
    return 0;
}

}  // namespace attnscope::cli
