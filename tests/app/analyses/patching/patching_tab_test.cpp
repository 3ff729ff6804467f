// The real main window offscreen on the GPT-2 fixture: the "Activation patching" tab takes the
// sentence as the clean prompt and a typed corrupted one of the same token count (a different
// count is refused, both counts said); every sweep and direction shows the core's patchSweep on
// the core's runPatchingBase (a fresh one here, with attnscope-cli patch's default tokens worked
// out from the core's predictions) in its heatmap, table and caption; the tokens picked in
// Predictions are used; a head cell opens its head; Cancel stops a sweep; a typed path shows the
// parser's error or the core's pathPatch; the CSV has a row per patched run. Issue 34.
#include <cmath>

#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "analyses/patching/patching_path_box.h"
#include "analyses/patching/patching_table_model.h"
#include "analyses/patching/patching_view.h"
#include "attnscope/analysis/activation_patching.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/prediction.h"
#include "main_window.h"
#include "panel_test_support.h"
#include "pool_gate.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "views/heatmap_widget.h"
#include "window_test.h"

using namespace attnscope;
using namespace attnscope::app;
using analysis::PatchDirection;
using analysis::PatchSweep;

Q_DECLARE_METATYPE(attnscope::analysis::PatchSweep)
Q_DECLARE_METATYPE(attnscope::analysis::PatchDirection)

namespace {

constexpr int kTimeoutMs = 30000;
const QString kClean = QStringLiteral("the quick brown fox jumps");
const QString kCorrupted = QStringLiteral("the quick green fox jumps");  // 16 tokens each
const QString kLonger = QStringLiteral("the quick brown dog jumps");     // 15 tokens

std::vector<std::int32_t> idsOf(const model::Model& m, const QString& text) {
    return tokenize::ids(m.tokenizer->encode(text.toStdString()));
}

// The core's endpoints for the session's sentence and `corrupted`: the tokens as given, or
// attnscope-cli patch's defaults (the clean top; the corrupted top, else the clean second).
analysis::PatchingBase coreBase(const AnalysisSession& s, const QString& corrupted,
                                std::optional<std::int32_t> target = {},
                                std::optional<std::int32_t> distractor = {}) {
    const model::Model& m = *s.model();
    analysis::PatchingSetup setup;
    setup.clean = s.cleanResult()->forward.tokenIds;
    setup.corrupted = idsOf(m, corrupted);
    setup.position = static_cast<int>(setup.clean.size()) - 1;
    const auto clean = forward::runForward(m, {setup.clean, {}});
    const auto bad = forward::runForward(m, {setup.corrupted, {}});
    const auto cleanTop = forward::topPredictions(m, clean, setup.position, 2);
    const std::int32_t badTop = forward::topPredictions(m, bad, setup.position, 1)[0].id;
    setup.target = target.value_or(cleanTop[0].id);
    setup.distractor = distractor.value_or(badTop != setup.target           ? badTop
                                           : cleanTop[0].id != setup.target ? cleanTop[0].id
                                                                            : cleanTop[1].id);
    return analysis::runPatchingBase(m, setup, {});
}

bool close(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

}  // namespace

class PatchingTabTest : public paneltest::FreshWindowTest {
    Q_OBJECT

private slots:
    void sweepShowsTheCore_data();
    void sweepShowsTheCore();
    void pickedAndTypedTokens();
    void differentLengthsAreRefused();
    void cancelStopsTheSweep();
    void pathPatchingShowsTheCore();

private:
    // The tab on screen with the fixture open and kClean as the sentence.
    PatchingView* openTab();
    // Runs the view's sweep and waits for a new one to show.
    bool sweepDone(PatchingView* view);
};

PatchingView* PatchingTabTest::openTab() {
    auto* tabs = m_window->findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    auto* view = m_window->findChild<PatchingView*>(QStringLiteral("patchingView"));
    if (!tabs || !view || tabs->tabText(tabs->indexOf(view)) != QString("Activation patching")) {
        return nullptr;
    }
    tabs->setCurrentWidget(view);
    if (!open(paneltest::checkpointDir("gpt2_f32"), kClean)) {
        return nullptr;
    }
    return QTest::qWaitFor([view] { return view->hasResult(); }, kTimeoutMs) ? view : nullptr;
}

bool PatchingTabTest::sweepDone(PatchingView* view) {
    const auto before = view->shownSweep();
    if (!view->runSweep()) {
        return false;
    }
    return QTest::qWaitFor([&] { return view->shownSweep() != before; }, kTimeoutMs);
}

void PatchingTabTest::sweepShowsTheCore_data() {
    QTest::addColumn<PatchSweep>("sweep");
    QTest::addColumn<PatchDirection>("direction");
    QTest::newRow("head, denoise") << PatchSweep::Head << PatchDirection::Denoise;
    QTest::newRow("head, noise") << PatchSweep::Head << PatchDirection::Noise;
    QTest::newRow("head-position") << PatchSweep::HeadPosition << PatchDirection::Denoise;
    QTest::newRow("resid") << PatchSweep::Residual << PatchDirection::Denoise;
    QTest::newRow("attn-out") << PatchSweep::AttnOut << PatchDirection::Noise;
    QTest::newRow("mlp-out") << PatchSweep::MlpOut << PatchDirection::Denoise;
}

void PatchingTabTest::sweepShowsTheCore() {
    QFETCH(PatchSweep, sweep);
    QFETCH(PatchDirection, direction);
    PatchingView* view = openTab();
    QVERIFY(view);
    AnalysisSession* s = m_window->session();
    // Filled from the clean prompt, then edited.
    QCOMPARE(view->corruptedField()->text(), kClean);
    view->corruptedField()->setText(kCorrupted);
    QVERIFY2(view->checkLine()->text().contains(QStringLiteral("16 tokens")),
             qPrintable(view->checkLine()->text()));
    view->setSweepKind(sweep);
    view->setDirection(direction);
    QVERIFY(sweepDone(view));

    const analysis::PatchingBase base = coreBase(*s, kCorrupted);
    const analysis::PatchingGrid expected =
        analysis::patchSweep(*s->model(), base, sweep, direction);
    const auto shown = view->shownSweep();
    const analysis::PatchingGrid& g = shown->grid;
    QCOMPARE(shown->endpoints->base->setup.target, base.setup.target);
    QCOMPARE(shown->endpoints->base->setup.distractor, base.setup.distractor);
    QVERIFY(close(shown->endpoints->base->ldClean, base.ldClean));
    QVERIFY(close(shown->endpoints->base->ldCorrupted, base.ldCorrupted));
    QCOMPARE(g.sweep, sweep);
    QCOMPARE(g.direction, direction);
    QCOMPARE(g.metric.size(), expected.metric.size());
    for (std::size_t i = 0; i < g.metric.size(); ++i) {
        QVERIFY2(close(g.ld[i], expected.ld[i]) && close(g.metric[i], expected.metric[i]),
                 qPrintable(QString::number(i)));
    }
    // Clean and corrupted LD in the caption.
    const QString caption = view->caption()->text();
    QVERIFY2(caption.contains(QString::number(base.ldClean, 'f', 4)) &&
                 caption.contains(QString::number(base.ldCorrupted, 'f', 4)),
             qPrintable(caption));

    // The map: layers × heads, or layers × positions; a head-position sweep at one position.
    const int layers = s->layerCount();
    const bool heads = sweep == PatchSweep::Head || sweep == PatchSweep::HeadPosition;
    const int columns = heads ? s->headCount() : static_cast<int>(base.setup.clean.size());
    QCOMPARE(view->heatmap()->image().size(), QSize(columns, layers));
    const int at = view->shownPosition();
    const std::size_t cell = expected.index(layers - 1, columns - 1, at);
    const QString tip = view->heatmap()->cellToolTip(layers - 1, columns - 1);
    QVERIFY2(tip.contains(QString::asprintf("%+.4f", expected.ld[cell])), qPrintable(tip));

    // The table: every run, the largest |metric| first.
    QTableView* table = view->table();
    QCOMPARE(table->model()->rowCount(), static_cast<int>(expected.metric.size()));
    double largest = 0;
    for (const double v : expected.metric) {
        largest = std::isnan(v) ? largest : std::max(largest, std::abs(v));
    }
    const QString first = table->model()->index(0, PatchingTableModel::Metric).data().toString();
    QVERIFY2(std::abs(std::abs(first.toDouble()) - largest) < 1e-4, qPrintable(first));

    // A head's cell opens its head; a position's does not.
    const QRectF rect = view->heatmap()->cellRect(layers - 1, 0);
    const HeadId before = s->selectedHead();
    QTest::mouseClick(view->heatmap(), Qt::LeftButton, {}, rect.center().toPoint());
    QCOMPARE(s->selectedHead(), heads ? HeadId(layers - 1, 0) : before);

    // The CSV: a row per patched run.
    QTemporaryDir dir;
    const QString csv = dir.filePath(QStringLiteral("patch.csv"));
    QVERIFY(view->exportRun(csv));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll().trimmed().split('\n').size(),
             static_cast<int>(expected.metric.size()) + 1);
    const QString png = dir.filePath(QStringLiteral("patch.png"));
    QVERIFY(view->exportFigure(png));
    QVERIFY(QFileInfo(png).size() > 1000);
}

void PatchingTabTest::pickedAndTypedTokens() {
    PatchingView* view = openTab();
    QVERIFY(view);
    AnalysisSession* s = m_window->session();
    view->corruptedField()->setText(kCorrupted);
    const model::Model& m = *s->model();
    const auto top =
        forward::topPredictions(m, s->cleanResult()->forward, s->predictionPosition(), 4);
    // Picked in Predictions: the fields show the pieces and the run uses them.
    s->pickTarget(top[2].id);
    s->pickDistractor(top[3].id);
    QCOMPARE(view->targetField()->text(),
             QString::fromStdString(analysis::tokenLabel(forward::tokenPiece(m, top[2].id))));
    QVERIFY(sweepDone(view));
    const analysis::PatchingBase base = coreBase(*s, kCorrupted, top[2].id, top[3].id);
    QCOMPARE(view->shownSweep()->endpoints->base->setup.target, top[2].id);
    QCOMPARE(view->shownSweep()->endpoints->base->setup.distractor, top[3].id);
    QVERIFY(close(view->shownSweep()->endpoints->base->ldClean, base.ldClean));
    // Typed as Predictions writes it (or as the vocabulary has it): that token.
    view->targetField()->setText(
        QString::fromStdString(analysis::tokenLabel(forward::tokenPiece(m, top[1].id))));
    view->distractorField()->setText(QString::fromStdString(forward::tokenPiece(m, top[3].id)));
    QVERIFY(sweepDone(view));
    QCOMPARE(view->shownSweep()->endpoints->base->setup.target, top[1].id);
    QCOMPARE(view->shownSweep()->endpoints->base->setup.distractor, top[3].id);
    // Typed: a piece outside the vocabulary is refused, with the reason.
    view->distractorField()->setText(QStringLiteral("no-such-piece"));
    QVERIFY(!view->runSweep());
    QVERIFY2(view->checkLine()->text().contains(QStringLiteral("not a token")),
             qPrintable(view->checkLine()->text()));
    // Picks cleared: back to the CLI's defaults.
    s->pickTarget(std::nullopt);
    s->pickDistractor(std::nullopt);
    QVERIFY(view->targetField()->text().isEmpty() && view->distractorField()->text().isEmpty());
    QVERIFY(sweepDone(view));
    QCOMPARE(view->shownSweep()->endpoints->base->setup.target,
             coreBase(*s, kCorrupted).setup.target);
}

void PatchingTabTest::differentLengthsAreRefused() {
    PatchingView* view = openTab();
    QVERIFY(view);
    view->corruptedField()->setText(kLonger);
    const QString line = view->checkLine()->text();
    QVERIFY2(line.contains(QStringLiteral("Not the same length")) &&
                 line.contains(QStringLiteral("16")) && line.contains(QStringLiteral("15")),
             qPrintable(line));
    auto* run = view->findChild<QPushButton*>(QStringLiteral("patchingRun"));
    QVERIFY(!run->isEnabled());
    QVERIFY(!view->runSweep());
    QVERIFY(!m_window->service()->job<PatchingJob>().isRunning());
    QVERIFY(!view->shownSweep());
    // The path box refuses too.
    view->pathBox()->field()->setText(QStringLiteral("0-0 -> 1-0:q"));
    QVERIFY(!view->pathBox()->patchPath());
    // "Copy from clean" gives the clean prompt back, which runs.
    view->findChild<QPushButton*>(QStringLiteral("patchingCopyClean"))->click();
    QCOMPARE(view->corruptedField()->text(), kClean);
    QVERIFY(run->isEnabled());
}

void PatchingTabTest::cancelStopsTheSweep() {
    PatchingView* view = openTab();
    QVERIFY(view);
    AnalysisSession* s = m_window->session();
    QSignalSpy errors(s, &AnalysisSession::errorReported);
    QSignalSpy notes(s, &AnalysisSession::noteReported);
    view->corruptedField()->setText(kCorrupted);
    view->setSweepKind(PatchSweep::HeadPosition);
    auto* progress = view->findChild<QProgressBar*>(QStringLiteral("patchingProgress"));
    auto* cancel = view->findChild<QPushButton*>(QStringLiteral("patchingCancel"));
    QVERIFY(progress->isHidden() && cancel->isHidden());
    {
        // The sweep waits in the background pool, in flight, until the gate opens.
        paneltest::PoolGate gate(m_window->service()->backgroundPool());
        QVERIFY(view->runSweep());
        QVERIFY(!progress->isHidden() && !cancel->isHidden());
        cancel->click();
    }
    QTRY_VERIFY_WITH_TIMEOUT(!m_window->service()->job<PatchingJob>().isRunning(), kTimeoutMs);
    QTRY_VERIFY(progress->isHidden());
    QVERIFY(!view->shownSweep());
    QCOMPARE(errors.count(), 0);  // cancelling is no failure: a note says it
    QCOMPARE(notes.count(), 1);
    QVERIFY2(notes.first().at(0).toString().contains(QStringLiteral("cancelled")),
             qPrintable(notes.first().at(0).toString()));
    // Run again, it completes.
    QVERIFY(sweepDone(view));
}

void PatchingTabTest::pathPatchingShowsTheCore() {
    PatchingView* view = openTab();
    QVERIFY(view);
    AnalysisSession* s = m_window->session();
    view->corruptedField()->setText(kCorrupted);
    view->setDirection(PatchDirection::Noise);
    PatchingPathBox* box = view->pathBox();
    // An invalid path: the parser's own message under the field.
    const QString bad = QStringLiteral("0-0 -> 1-0:x");
    box->field()->setText(bad);
    QVERIFY(box->error()->isVisibleTo(box));
    QString parserMessage;
    try {
        analysis::parsePathSpec(bad.toStdString());
    } catch (const Error& e) {
        parserMessage = QString::fromStdString(e.what());
    }
    QVERIFY(!parserMessage.isEmpty());
    QCOMPARE(box->error()->text(), parserMessage);
    QVERIFY(!box->patchPath());

    const analysis::PatchingBase base = coreBase(*s, kCorrupted);
    const QStringList paths = {QStringLiteral("0-0,0-2 -> 1-1:k"), QStringLiteral("0-1 -> logits")};
    for (int i = 0; i < paths.size(); ++i) {
        box->field()->setText(paths[i]);
        QVERIFY(!box->error()->isVisibleTo(box));
        QVERIFY(box->patchPath());
        QTRY_COMPARE_WITH_TIMEOUT(box->results()->rowCount(), i + 1, kTimeoutMs);
        const analysis::PathSpec spec =
            analysis::parsePathSpec(paths[i].toStdString(), PatchDirection::Noise);
        const analysis::PathResult expected = analysis::pathPatch(*s->model(), base, spec);
        const QTableWidget* t = box->results();  // newest first
        QCOMPARE(t->item(0, 0)->text(), QString::fromStdString(analysis::describe(spec)));
        QCOMPARE(t->item(0, 1)->text(), QString::asprintf("%+.4f", expected.metric));
        QCOMPARE(t->item(0, 2)->text(), QString::asprintf("%+.4f", expected.ld));
        const auto& row = s->document<PatchingDocument>().paths().back();
        QVERIFY(close(row.result.ld, expected.ld) && close(row.result.metric, expected.metric));
    }
}

QTEST_MAIN(PatchingTabTest)
#include "patching_tab_test.moc"
