// Not a test: drives the real main window (run it under xvfb-run, xcb platform) and saves the
// README's screenshot of issue 34's tabs.
//   circuits_screenshots CAUSAL_LM OUT_DIR ["sentence" ["corrupted sentence"]]
// "circuits_dla_lens.png": the window on the Logit attribution tab — the top prediction after the
// sentence minus the second (picked in Predictions with Ctrl+click, framed there), the largest
// head selected — with the Logit lens tab of the same window (its table and legend) under it.
// "circuits_dla.png" and "circuits_lens.png" are the two on their own, "circuits_dla_figure.png"
// and "circuits_lens_figure.png" what their Export menus write; "circuits_generation.png" the
// Generation tab (below); "circuits_graph.png" the Circuits tab and "circuits_graph_figure.png"
// its graph figure; "circuits_patching.png" the Activation patching tab and, when the model
// has a series/ folder, "circuits_series.png" its Training tab (below).
// ATTNSCOPE_SHOT_SIZE=1024x700 tries another size.
#include <cmath>
#include <cstdio>

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QLineEdit>
#include <QPainter>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>

#include "analyses/circuits/circuits_view.h"
#include "analyses/circuits/composition_graph.h"
#include "analyses/dla/dla_view.h"
#include "analyses/generation/generation_view.h"
#include "analyses/lens/lens_view.h"
#include "analyses/patching/patching_path_box.h"
#include "analyses/patching/patching_view.h"
#include "analyses/series/series_document.h"
#include "analyses/series/series_view.h"
#include "main_window.h"
#include "screenshot_support.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"

using namespace attnscope::app;

namespace {

// Runs the event loop until `done()` (or 60 s), then lets the views repaint.
template <class Done>
void waitUntil(Done done) {
    for (int i = 0; i < 600 && !done(); ++i) {
        shots::settle(100);
    }
    shots::settle();
}

// The head whose term is largest in size.
attnscope::HeadId largestHead(const DlaDocument::Run& run) {
    attnscope::HeadId best;
    double most = -1;
    for (const auto& t : run.attribution.terms) {
        if (t.kind == attnscope::analysis::DlaTermKind::Head && std::abs(t.value) > most) {
            most = std::abs(t.value);
            best = {t.layer, t.head};
        }
    }
    return best;
}

// The Logit lens tab as far as its table's last row, and its legend under it: the tab's empty
// lower part left out.
QImage lensArea(QTabWidget* tabs, LensView* lens) {
    QTableView* table = lens->table();
    const int last = table->model()->rowCount() - 1;
    const QPoint end = table->viewport()->mapTo(
        tabs, QPoint(0, table->rowViewportPosition(last) + table->rowHeight(last)));
    const QImage top = tabs->grab(QRect(0, 0, tabs->width(), end.y() + 6)).toImage();
    auto* legendWidget = lens->findChild<QWidget*>(QStringLiteral("lensLegend"));
    const QImage legend = legendWidget->grab().toImage();
    QImage out(top.width(), top.height() + legend.height() + 8, QImage::Format_RGB32);
    out.fill(tabs->palette().color(QPalette::Window));
    QPainter p(&out);
    p.drawImage(0, 0, top);
    p.drawImage(table->mapTo(tabs, QPoint(0, 0)).x(), top.height() + 4, legend);
    return out;
}

// `window` above `area`, which is placed under the view tabs it was grabbed from.
void saveStacked(const QImage& window, const QImage& area, int left, const QString& path) {
    constexpr int kGap = 12;
    QImage out(window.width(), window.height() + kGap + area.height(), QImage::Format_RGB32);
    out.fill(Qt::white);
    QPainter p(&out);
    p.drawImage(0, 0, window);
    p.drawImage(left, window.height() + kGap, area);
    p.end();
    out.save(path);
    std::printf("wrote %s\n", qPrintable(path));
}

// The Activation patching tab: the sentence against the first of a few corrupted prompts with
// its token count (or `corrupted` when given), every head denoised, one path patched;
// "circuits_patching.png" and its figure "circuits_patching_figure.png"; then every head at
// each position, "circuits_patching_positions.png".
void shootPatching(MainWindow& w, const QString& out, const QString& corrupted) {
    auto* tabs = w.findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    auto* view = w.findChild<PatchingView*>(QStringLiteral("patchingView"));
    tabs->setCurrentWidget(view);
    shots::settle();
    QStringList candidates = {corrupted, QStringLiteral("The key to the cabinet is on the"),
                              QStringLiteral("The keys to the drawer are on the")};
    for (const QString& c : candidates) {
        QString why;
        view->corruptedField()->setText(c);
        if (!c.isEmpty() && view->request(&why)) {
            break;
        }
    }
    view->runSweep();
    waitUntil([view] { return view->shownSweep() != nullptr; });
    // 0-0 into the last layer's values, queries and keys (newest first in the box's table): on
    // the circuits model the previous-token head's path into the induction heads' keys.
    const int layers = w.session()->layerCount();
    QStringList receivers;
    for (int h = 0; h < w.session()->headCount(); ++h) {
        receivers << QStringLiteral("%1-%2").arg(layers - 1).arg(h);
    }
    const QStringList paths =
        layers > 1 ? QStringList{QStringLiteral("0-0 -> %1:v").arg(receivers.join(u',')),
                                 QStringLiteral("0-0 -> %1:q").arg(receivers.join(u',')),
                                 QStringLiteral("0-0 -> %1:k").arg(receivers.join(u','))}
                   : QStringList{QStringLiteral("0-0 -> logits")};
    for (qsizetype i = 0; i < paths.size(); ++i) {
        view->pathBox()->field()->setText(paths[i]);
        view->pathBox()->patchPath();
        waitUntil([&w, i] {
            return w.session()->document<PatchingDocument>().paths().size() > std::size_t(i);
        });
    }
    shots::shot(w, out, "circuits_patching.png");
    view->exportFigure(QDir(out).filePath(QStringLiteral("circuits_patching_figure.png")));
    const auto heads = view->shownSweep();
    view->setSweepKind(attnscope::analysis::PatchSweep::HeadPosition);
    view->runSweep();
    waitUntil([view, heads] { return view->shownSweep() != heads; });
    shots::shot(w, out, "circuits_patching_positions.png");
}

// "circuits_series.png": the Training tab on the model's training series, the induction probe
// against the step, the card's induction head 1-2 thick (the series' last checkpoint becomes the
// session's model, so this comes last).
void shootSeries(MainWindow& w, const QString& out, const QString& folder) {
    auto* tabs = w.findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    auto* series = w.findChild<SeriesView*>(QStringLiteral("seriesView"));
    tabs->setCurrentWidget(series);
    series->openSeries(folder);
    auto& document = w.session()->document<SeriesDocument>();
    waitUntil([&document] { return document.statistics() != nullptr; });
    auto* metric = w.findChild<QComboBox*>(QStringLiteral("seriesMetric"));
    metric->setCurrentIndex(metric->findText(QStringLiteral("induction probe")));
    w.session()->selectHead({1, 2});
    shots::shot(w, out, "circuits_series.png");
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("AttnScopeScreenshots"));
    if (argc < 3) {
        std::fprintf(stderr, "usage: circuits_screenshots CAUSAL_LM OUT_DIR [text [corrupted]]\n");
        return 2;
    }
    const QString out = QString::fromLocal8Bit(argv[2]);
    const QString text = argc > 3 ? QString::fromLocal8Bit(argv[3])
                                  : QStringLiteral("The keys to the cabinet are on the");
    MainWindow w;
    shots::showAtShotSize(w);
    w.start(QString::fromLocal8Bit(argv[1]), text);
    AnalysisSession* s = w.session();
    waitUntil([s] { return s->result() != nullptr; });
    auto* tabs = w.findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    auto* dla = w.findChild<DlaView*>(QStringLiteral("dlaView"));
    tabs->setCurrentWidget(dla);
    waitUntil([s] { return s->predictions().top.size() > 1; });
    s->pickDistractor(s->predictions().top[1].id);
    waitUntil([dla] { return dla->shownRun() && dla->shownRun()->attribution.distractor; });
    s->selectHead(largestHead(*dla->shownRun()));
    tabs->setCurrentWidget(dla);
    shots::shot(w, out, "circuits_dla.png");
    const QImage dlaWindow = w.grab().toImage();

    auto* lens = w.findChild<LensView*>(QStringLiteral("lensView"));
    tabs->setCurrentWidget(lens);
    waitUntil([lens] { return lens->hasResult(); });
    shots::shot(w, out, "circuits_lens.png");
    saveStacked(dlaWindow, lensArea(tabs, lens), tabs->mapTo(&w, QPoint(0, 0)).x(),
                QDir(out).filePath(QStringLiteral("circuits_dla_lens.png")));
    // What the two Export menus write, to look at beside the tabs.
    dla->exportFigure(QDir(out).filePath(QStringLiteral("circuits_dla_figure.png")));
    lens->exportFigure(QDir(out).filePath(QStringLiteral("circuits_lens_figure.png")));

    // The Circuits tab, the head reading most from an earlier one selected, and its figure.
    auto* circuits = w.findChild<CircuitsView*>(QStringLiteral("circuitsView"));
    tabs->setCurrentWidget(circuits);
    waitUntil([circuits] { return circuits->hasResult(); });
    if (!circuits->graph()->edges().empty()) {
        const auto& run = circuits->shownRun()->circuits;
        s->selectHead(headAt(run, circuits->graph()->edges().front().reader));
    }
    shots::shot(w, out, "circuits_graph.png");
    circuits->exportFigure(QDir(out).filePath(QStringLiteral("circuits_graph_figure.png")));

    // "circuits_generation.png": the Generation tab, 16 greedy steps from the sentence, at its
    // sixth step; "circuits_generation_figure.png" what its Export menu writes.
    auto* generation = w.findChild<GenerationView*>(QStringLiteral("generationView"));
    tabs->setCurrentWidget(generation);
    generation->findChild<QSpinBox*>(QStringLiteral("generationSteps"))->setValue(16);
    generation->generate();
    waitUntil([generation] { return generation->shownRun() != nullptr; });
    generation->setStep(5);
    shots::shot(w, out, "circuits_generation.png");
    generation->exportFigure(QDir(out).filePath(QStringLiteral("circuits_generation_figure.png")));
    shootPatching(w, out, argc > 4 ? QString::fromLocal8Bit(argv[4]) : QString());
    const QString folder = QDir(QString::fromLocal8Bit(argv[1])).filePath(QStringLiteral("series"));
    if (QDir(folder).exists()) {
        shootSeries(w, out, folder);
    }
    return 0;
}
