// Not a test: drives the real main window (run it under xvfb-run, xcb platform) and saves the
// README's screenshots.
//   readme_screenshots MODEL_DIR OUT_DIR ["sentence" [TREEBANK.conllu [COREF.conllu]]]
// It also ablates a head for "ablation.png". With a treebank, it is scored in the Dependencies
// dock for "dependencies.png" and "dependencies-words.png" (word-level head view with gold arcs)
// and its first 100 sentences give "importance.png", all of them "survey.png"; with a CorefUD
// treebank too, in the Coreference dock for "coreference.png" (a short window with several gold
// arcs, its best head at word level). "attribution.png" is the Methods tab (raw attention against
// ALTI in the last layer), "attribution-head.png" the head view showing ALTI.
#include <cstdio>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QEventLoop>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStringListModel>
#include <QTabWidget>
#include <QTimer>

#include "analyses/coref/coref_document.h"
#include "analyses/coref/coref_panel.h"
#include "analyses/dependencies/dependency_panel.h"
#include "analyses/importance/importance_dock.h"
#include "analyses/importance/importance_job.h"
#include "analyses/survey/survey_job.h"
#include "attnscope/analysis/coref_scoring.h"
#include "main_window.h"
#include "panels/sentence_panel.h"
#include "screenshot_support.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "views/head_view.h"

using namespace attnscope::app;
namespace analysis = attnscope::analysis;

namespace {

// Runs the event loop until `signal` fires (or `ms` pass), then lets the views repaint.
template <class Sender, class Signal>
void waitFor(Sender* sender, Signal signal, int ms = 60000) {
    QEventLoop loop;
    QObject::connect(sender, signal, &loop, &QEventLoop::quit);
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
    shots::settle();
}

using shots::shot;

// "ablation.png": the sentence with a [MASK] at its end, head 1-0 zero-ablated, a head of the
// layer above on screen (changed downstream) and the clean and ablated predictions side by side.
void ablationShot(MainWindow& w, const QString& text, const QString& out) {
    QString masked = text;
    const qsizetype lastWord = masked.lastIndexOf(QLatin1Char(' '));
    masked = masked.left(lastWord + 1) + QStringLiteral("[MASK].");
    w.session()->setText(masked);
    waitFor(w.service(), &ComputeService::computeFinished);
    auto* tabs = w.findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    tabs->setCurrentIndex(0);  // the head view
    w.findChild<QDockWidget*>(QStringLiteral("predictionDock"))->raise();
    w.session()->ablateHead({1, 0}, attnscope::forward::AblationKind::Zero);
    waitFor(w.service(), &ComputeService::computeFinished);
    w.session()->selectHead({2, 0});
    shot(w, out, "ablation.png");
    w.session()->setAblations({});
    w.session()->setText(text);
    waitFor(w.service(), &ComputeService::computeFinished);
}

// Runs the event loop until the session holds `method`'s maps (or 60 s pass).
void waitForAttribution(AnalysisSession* session, analysis::AttributionMethod method) {
    QEventLoop loop;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (session->attributions().state(method).status != AttributionState::Waiting) {
            loop.quit();
        }
    });
    poll.start(50);
    QTimer::singleShot(60000, &loop, &QEventLoop::quit);
    loop.exec();
}

// "attribution.png": raw attention (the layer's mean) against ALTI in the last layer, side by
// side in the Methods tab; "attribution-head.png": the head view in ALTI mode.
void attributionShots(MainWindow& w, const QString& out) {
    auto* tabs = w.findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    w.session()->selectHead({w.session()->layerCount() - 1, 0});
    tabs->setCurrentIndex(
        tabs->indexOf(w.findChild<QWidget*>(QStringLiteral("methodCompareView"))));
    waitForAttribution(w.session(), analysis::AttributionMethod::Raw);
    waitForAttribution(w.session(), analysis::AttributionMethod::Alti);
    shot(w, out, "attribution.png");
    tabs->setCurrentIndex(0);
    w.session()->attributions().setHeadViewMethod(analysis::AttributionMethod::Alti);
    shot(w, out, "attribution-head.png");
    w.session()->attributions().setHeadViewMethod(analysis::AttributionMethod::Raw);
}

// "importance.png": every head ablated alone on the treebank's first 100 sentences.
void importanceShot(MainWindow& w, const QString& treebank, const QString& out) {
    computeImportanceWhenOpen(&w, w.session(), w.service(), treebank);
    waitFor(&w.service()->job<ImportanceJob>(), &CorpusJob::finished);
    auto* dock = w.findChild<QDockWidget*>(QStringLiteral("importanceDock"));
    dock->show();
    dock->raise();
    w.session()->selectHead({1, 0});
    shot(w, out, "importance.png");
}

// "survey.png": every head surveyed on the whole treebank (the default model's card reports the
// same run), the map coloured by label, the syntactic head 1-2 open.
void surveyShot(MainWindow& w, const QString& treebank, const QString& out) {
    auto* dock = w.findChild<QDockWidget*>(QStringLiteral("surveyDock"));
    dock->show();
    dock->raise();
    w.findChild<QSpinBox*>(QStringLiteral("surveySentences"))->setValue(0);  // all
    w.findChild<QLineEdit*>(QStringLiteral("surveyPath"))->setText(treebank);
    w.findChild<QPushButton*>(QStringLiteral("surveyCompute"))->click();
    waitFor(&w.service()->job<SurveyJob>(), &CorpusJob::finished, 300000);
    auto* colouring = w.findChild<QComboBox*>(QStringLiteral("surveyColouring"));
    colouring->setCurrentIndex(colouring->count() - 1);  // by label
    w.session()->selectHead({1, 2});
    shot(w, out, "survey.png");
}

// Scores `treebank`, shows "nsubj" and its best head with the treebank's first sentence.
void dependencyShots(MainWindow& w, const QString& treebank, const QString& out) {
    auto* panel = w.findChild<DependencyPanel*>(QStringLiteral("dependencyPanel"));
    auto* dock = w.findChild<QDockWidget*>(QStringLiteral("dependencyDock"));
    dock->show();
    dock->raise();
    if (qEnvironmentVariableIsEmpty("ATTNSCOPE_SHOT_SIZE")) {
        w.resizeDocks({dock}, {430}, Qt::Vertical);
    }
    panel->startScoring(treebank);
    waitFor(panel, &DependencyPanel::scoringFinished);
    // The treebank's first sentence, so that the head view outlines its gold arcs.
    auto* sentences = w.findChild<SentencePanel*>(QStringLiteral("sentencePanel"));
    w.session()->setText(sentences->sentences()->index(0).data().toString());
    waitFor(w.service(), &ComputeService::computeFinished);
    panel->selectRelation("nsubj");
    if (const auto best = panel->results()->bestHead("nsubj")) {
        w.session()->selectHead(best->head);
    }
    auto* tabs = w.findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    tabs->setCurrentIndex(0);
    shot(w, out, "dependencies.png");
    std::printf("window %dx%d, minimum %dx%d\n", w.width(), w.height(), w.minimumSizeHint().width(),
                w.minimumSizeHint().height());
    for (QDockWidget* d : w.findChildren<QDockWidget*>()) {
        std::printf("  %s %s min %dx%d\n", qPrintable(d->objectName()),
                    d->isVisible() ? "shown" : "hidden", d->minimumSizeHint().width(),
                    d->minimumSizeHint().height());
    }
    auto* pages = w.findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    for (int i = 0; i < pages->count(); ++i) {
        std::printf("  tab %s min %dx%d\n", qPrintable(pages->tabText(i)),
                    pages->widget(i)->minimumSizeHint().width(),
                    pages->widget(i)->minimumSizeHint().height());
    }
    std::printf("  central min %dx%d\n", w.centralWidget()->minimumSizeHint().width(),
                w.centralWidget()->minimumSizeHint().height());
    w.findChild<HeadView*>(QStringLiteral("headView"))->setWordLevel(true);
    shot(w, out, "dependencies-words.png");
}

// The window with the most gold arcs among those of at most 200 bytes of text (the first of
// ties): small enough to read at word level.
int shortWindowWithArcs(const CorefScores& scores) {
    int best = -1;
    std::size_t most = 0;
    for (std::size_t i = 0; i < scores.windows.windows.size(); ++i) {
        if (scores.windowTexts[i].size() > 200) {
            continue;
        }
        const std::size_t arcs =
            analysis::corefArcs(*scores.corpus, scores.windows.windows[i]).size();
        if (arcs > most) {
            most = arcs;
            best = static_cast<int>(i);
        }
    }
    return best;
}

// Scores `treebank` for coreference and shows a window with the best head of all mentions.
void corefShots(MainWindow& w, const QString& treebank, const QString& out) {
    auto* panel = w.findChild<CorefPanel*>(QStringLiteral("corefPanel"));
    panel->startScoring(treebank);
    waitFor(panel, &CorefPanel::scoringFinished);
    const auto scores = w.session()->document<CorefDocument>().scores();
    if (!scores) {
        std::fprintf(stderr, "coreference scoring failed\n");
        return;
    }
    if (const int window = shortWindowWithArcs(*scores); window >= 0) {
        panel->chooseWindow(window);
        waitFor(w.service(), &ComputeService::computeFinished);
    }
    if (const auto best = scores->counts.bestHead(analysis::MentionGroup::All)) {
        w.session()->selectHead(*best);
    }
    w.findChild<HeadView*>(QStringLiteral("headView"))->setWordLevel(true);
    shot(w, out, "coreference.png");
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("AttnScopeScreenshots"));
    if (argc < 3) {
        std::fprintf(stderr, "usage: readme_screenshots MODEL_DIR OUT_DIR [sentence]\n");
        return 2;
    }
    const QString text = argc > 3 ? QString::fromLocal8Bit(argv[3])
                                  : QStringLiteral("The keys to the cabinet are on the table.");
    MainWindow w;
    shots::showAtShotSize(w);
    w.start(QString::fromLocal8Bit(argv[1]), text);
    waitFor(w.service(), &ComputeService::computeFinished);
    auto* tabs = w.findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    w.session()->selectHead({w.session()->layerCount() / 2, 1});
    shot(w, QString::fromLocal8Bit(argv[2]), "grid-and-head.png");
    auto* mask = w.findChild<QComboBox*>(QStringLiteral("maskKind"));
    mask->setCurrentIndex(mask->findText(QStringLiteral("Causal")));
    waitFor(w.service(), &ComputeService::computeFinished);
    shot(w, QString::fromLocal8Bit(argv[2]), "head-causal-mask.png");
    mask->setCurrentIndex(0);
    waitFor(w.service(), &ComputeService::computeFinished);
    tabs->setCurrentIndex(tabs->indexOf(w.findChild<QWidget*>(QStringLiteral("entropyCharts"))));
    shot(w, QString::fromLocal8Bit(argv[2]), "entropy-charts.png");
    w.session()->setCompareHead({w.session()->layerCount() - 1, 0});
    tabs->setCurrentIndex(tabs->indexOf(w.findChild<QWidget*>(QStringLiteral("compareView"))));
    shot(w, QString::fromLocal8Bit(argv[2]), "compare-heads.png");
    tabs->setCurrentIndex(tabs->indexOf(w.findChild<QWidget*>(QStringLiteral("lineView"))));
    shot(w, QString::fromLocal8Bit(argv[2]), "line-view.png");
    tabs->setCurrentIndex(tabs->indexOf(w.findChild<QWidget*>(QStringLiteral("offsetsView"))));
    shot(w, QString::fromLocal8Bit(argv[2]), "offsets.png");
    auto* dark = w.findChild<QAction*>(QStringLiteral("darkPaletteAction"));
    dark->setChecked(!dark->isChecked());
    shot(w, QString::fromLocal8Bit(argv[2]), "offsets-dark.png");
    dark->setChecked(!dark->isChecked());
    ablationShot(w, text, QString::fromLocal8Bit(argv[2]));
    attributionShots(w, QString::fromLocal8Bit(argv[2]));
    if (argc > 4) {
        dependencyShots(w, QString::fromLocal8Bit(argv[4]), QString::fromLocal8Bit(argv[2]));
        importanceShot(w, QString::fromLocal8Bit(argv[4]), QString::fromLocal8Bit(argv[2]));
        surveyShot(w, QString::fromLocal8Bit(argv[4]), QString::fromLocal8Bit(argv[2]));
    }
    if (argc > 5) {
        corefShots(w, QString::fromLocal8Bit(argv[5]), QString::fromLocal8Bit(argv[2]));
    }
    return 0;
}
