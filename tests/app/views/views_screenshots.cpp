// Writes screenshots of the entropy charts, the line view and the offsets view with real and
// synthetic results, in light and dark palettes, and prints how long a full repaint takes.
// For people to look at; not a test.
// Usage: QT_QPA_PLATFORM=offscreen app_views_screenshots <output folder>
#include <algorithm>
#include <cstdio>

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QStyleFactory>
#include <QSvgRenderer>
#include <QTextStream>

#include "analyses/entropy/entropy_charts.h"
#include "analyses/offsets/offsets_view.h"
#include "session/analysis_session.h"
#include "view_test_data.h"
#include "views/line_canvas.h"
#include "views/line_view.h"

using namespace attnscope;

namespace {

QDir g_out;

void save(QWidget& w, const QString& name) {
    QApplication::processEvents();
    const QString path = g_out.filePath(name);
    w.grab().save(path);
    std::printf("wrote %s\n", qPrintable(path));
}

// Median of a few repaints of the visible part, the cost of one frame when the whole view
// changes (new head, hover).
double medianPaintMs(QWidget& w) {
    std::vector<double> times;
    const QRect visible = w.visibleRegion().boundingRect();
    for (int i = 0; i < 7; ++i) {
        QElapsedTimer t;
        t.start();
        (void)w.grab(visible);
        times.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

QPalette darkPalette() {
    QPalette p;
    p.setColor(QPalette::Window, QColor(45, 45, 48));
    p.setColor(QPalette::WindowText, QColor(230, 230, 230));
    p.setColor(QPalette::Base, QColor(30, 30, 32));
    p.setColor(QPalette::Text, QColor(230, 230, 230));
    p.setColor(QPalette::Button, QColor(55, 55, 58));
    p.setColor(QPalette::ButtonText, QColor(230, 230, 230));
    p.setColor(QPalette::Highlight, QColor(42, 130, 218));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::PlaceholderText, QColor(150, 150, 150));
    return p;
}

void shoot(const QString& prefix, app::AnalysisSession& session) {
    {
        app::OffsetsView offsets(&session);
        offsets.resize(1000, 600);
        offsets.show();
        save(offsets, prefix + "_offsets.png");
        const HeadId selected = session.selectedHead();
        session.selectHead({0, 0});  // the synthetic results' previous-token head
        save(offsets, prefix + "_offsets_head0-0.png");
        session.selectHead(selected);
    }
    app::EntropyChartsView charts(&session);
    charts.resize(1000, 700);
    charts.show();
    save(charts, prefix + "_entropy.png");
    charts.showChart(app::EntropyChartsView::Chart::MaxLogit);
    save(charts, prefix + "_maxlogit.png");
    // The SVG export, rendered back to pixels so it can be looked at like the rest.
    const QString svgPath = g_out.filePath(prefix + "_entropy_chart.svg");
    QString error;
    if (!charts.saveChart(app::EntropyChartsView::Chart::HeadEntropy, svgPath, &error)) {
        std::printf("export failed: %s\n", qPrintable(error));
    }
    QSvgRenderer svg(svgPath);
    QImage rendered(svg.defaultSize(), QImage::Format_ARGB32_Premultiplied);
    rendered.fill(Qt::white);
    QPainter painter(&rendered);
    svg.render(&painter);
    painter.end();
    rendered.save(g_out.filePath(prefix + "_entropy_chart_svg.png"));

    app::LineView lines(&session);
    lines.resize(1000, 700);
    lines.show();
    save(lines, prefix + "_lines.png");
    {
        auto* bar = lines.scrollArea()->verticalScrollBar();
        std::printf("  scroll %d of [%d, %d], page %d\n", bar->value(), bar->minimum(),
                    bar->maximum(), bar->pageStep());
    }
    std::printf("%s line view: %d lines, full repaint %.1f ms\n", qPrintable(prefix),
                lines.lineCount(), medianPaintMs(*lines.canvas()));
    const int n = lines.canvas()->tokenCount();
    lines.canvas()->setHoveredToken(
        app::LineCanvas::Token{app::LineCanvas::Side::Query, std::min(n - 1, 6)});
    save(lines, prefix + "_lines_hover.png");
    std::printf("%s hover: %d highlighted, repaint %.1f ms\n", qPrintable(prefix),
                lines.canvas()->highlightedLineCount(), medianPaintMs(*lines.canvas()));
    lines.canvas()->setHoveredToken(std::nullopt);
    const int nLayers = session.result()->forward.nLayers;
    const int nHeads = session.result()->forward.nHeads;
    QElapsedTimer t;
    t.start();
    lines.setOverlayHeads({{nLayers - 1, 0}, {0, nHeads - 1}});
    (void)lines.canvas()->grab(lines.canvas()->visibleRegion().boundingRect());
    std::printf("%s adding two heads, first frame: %.1f ms\n", qPrintable(prefix),
                static_cast<double>(t.nsecsElapsed()) / 1e6);
    save(lines, prefix + "_lines_overlay.png");
    t.restart();
    session.selectHead({nLayers - 1, nHeads - 1});
    (void)charts.grab();
    std::printf("%s charts: new selected head, first frame: %.1f ms\n", qPrintable(prefix),
                static_cast<double>(t.nsecsElapsed()) / 1e6);
    std::printf("%s overlay: %d lines, full repaint %.1f ms\n", qPrintable(prefix),
                lines.lineCount(), medianPaintMs(*lines.canvas()));
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setStyle(QStyleFactory::create("Fusion"));
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s <output folder>\n", argv[0]);
        return 2;
    }
    g_out = QDir(QString::fromLocal8Bit(argv[1]));
    g_out.mkpath(".");

    {
        app::AnalysisSession session;
        const auto model = test::loadFixtureModel("gpt2_f32");
        session.setModel(model, "gpt2_f32");
        forward::ForwardOptions options;
        session.setResult(std::make_shared<const analysis::SentenceAnalysis>(
            analysis::analyzeText(*model, "The quick brown fox jumps.", options)));
        session.selectHead({1, 1});
        shoot("gpt2", session);
    }
    {
        app::AnalysisSession session;
        const auto model = test::loadFixtureModel("bert_f32");
        session.setModel(model, "bert_f32");
        forward::MaskChoice mask;
        mask.kind = forward::MaskKind::Custom;
        mask.custom = BoolMatrix::Ones(7, 7);
        mask.custom->row(3).setZero();
        session.setResult(test::analyze(*model, {101, 127, 405, 368, 182, 379, 102}, mask));
        shoot("bert_masked", session);
    }
    {
        app::AnalysisSession session;
        session.setModel(test::shapeOnlyModel(12, 12), "synthetic");
        session.setResult(test::syntheticAnalysis(12, 12, 40));
        session.selectHead({4, 7});
        shoot("synth12x12_40", session);
        session.setResult(test::syntheticAnalysis(12, 12, 512));
        shoot("synth12x12_512", session);
        QApplication::setPalette(darkPalette());
        session.setResult(test::syntheticAnalysis(12, 12, 40));
        shoot("dark_synth12x12_40", session);
    }
    return 0;
}
