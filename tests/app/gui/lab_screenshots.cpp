// Not a test: drives the real main window (run it under xvfb-run, xcb platform) and saves the
// README's screenshots of issue 33's tabs.
//   lab_screenshots QK_NORM_MODEL SERIES_FOLDER OUT_DIR ["sentence"]
// "saturation.png": the Saturation tab with QK-norm switched off (the model as it is beneath),
// the most saturated head selected. "series.png": the Training tab on the series folder, the
// previous-token score, head 1-0 selected. ATTNSCOPE_SHOT_SIZE=1024x700 tries another size.
#include <algorithm>
#include <cstdio>

#include <QApplication>
#include <QComboBox>
#include <QTabWidget>

#include "analyses/saturation/saturation_document.h"
#include "analyses/saturation/saturation_view.h"
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

using shots::shot;

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("AttnScopeScreenshots"));
    if (argc < 4) {
        std::fprintf(stderr, "usage: lab_screenshots QK_NORM_MODEL SERIES_FOLDER OUT_DIR [text]\n");
        return 2;
    }
    const QString out = QString::fromLocal8Bit(argv[3]);
    const QString text = argc > 4 ? QString::fromLocal8Bit(argv[4])
                                  : QStringLiteral("The keys to the cabinet are on the table.");
    MainWindow w;
    shots::showAtShotSize(w);
    w.start(QString::fromLocal8Bit(argv[1]), text);
    AnalysisSession* s = w.session();
    waitUntil([s] { return s->result() != nullptr; });
    auto* tabs = w.findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    auto* saturation = w.findChild<SaturationView*>(QStringLiteral("saturationView"));
    tabs->setCurrentWidget(saturation);
    w.findChild<QComboBox*>(QStringLiteral("whatIfQkNorm"))->setCurrentIndex(1);
    waitUntil([saturation] { return !saturation->baseline().empty(); });
    const auto& shown = saturation->shown();
    const auto top = std::max_element(shown.begin(), shown.end(), [](const auto& a, const auto& b) {
        return a.maxAbsLogit < b.maxAbsLogit;
    });
    if (top != shown.end()) {
        s->selectHead(top->head);
    }
    shot(w, out, "saturation.png");
    w.findChild<QComboBox*>(QStringLiteral("whatIfQkNorm"))->setCurrentIndex(0);

    auto* series = w.findChild<SeriesView*>(QStringLiteral("seriesView"));
    tabs->setCurrentWidget(series);
    series->openSeries(QString::fromLocal8Bit(argv[2]));
    auto& document = s->document<SeriesDocument>();
    waitUntil([&document] { return document.statistics() != nullptr; });
    w.findChild<QComboBox*>(QStringLiteral("seriesMetric"))->setCurrentIndex(3);
    s->selectHead({1, 0});
    shot(w, out, "series.png");
    return 0;
}
