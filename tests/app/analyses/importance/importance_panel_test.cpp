// Drives the Importance dock of the real main window offscreen (issue 17): compute head
// importance on a tiny sentence file in the background with a small random BERT (real
// vocabulary) and compare the heatmap, table and pruning curve with the core's own run; sort the
// table; click a cell and a row to open the head; cancel and fail keeping the previous result;
// export CSV (read back), HDF5 and figures; drop the result with a new model; key/value groups
// of a grouped-query model; the File menu entry and --importance. Issue 30: a successful rerun
// withdraws the "cancelled" message; the menu entry asks for the corpus.
#include "analyses/importance/importance_panel.h"

#include <algorithm>

#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextStream>
#include <QValueAxis>

#include "analyses/importance/importance_dock.h"
#include "analyses/importance/importance_document.h"
#include "analyses/importance/importance_job.h"
#include "analyses/importance/importance_table_model.h"
#include "analyses/importance/pruning_chart.h"
#include "attnscope/analysis/head_importance.h"
#include "command_line.h"
#include "main_window.h"
#include "panel_test_support.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "views/heatmap_widget.h"
#include "widgets/message_bar.h"
#include "window_test.h"

using namespace attnscope;
using namespace attnscope::app;

namespace {

const paneltest::PanelSpec<ImportancePanel> kPanel{
    QStringLiteral("importancePanel"), &ImportancePanel::computingFinished,
    &ImportancePanel::startComputing, &ImportancePanel::isComputing};

}  // namespace

class ImportancePanelTest : public paneltest::PanelFixture<ImportancePanel, kPanel> {
    Q_OBJECT

private slots:
    void initTestCase();

    void resultMatchesTheCore();
    void tableSorts();
    void clickOpensTheHead();
    void cancelKeepsPreviousResult();
    void badFileReportsErrorAndKeepsResult();
    void exportsCsvHdf5AndFigures();
    void anotherModelDropsTheResult();
    void keyValueGroupsOfAGroupedModel();
    void menuEntryAndCommandLine();
    void successfulRerunWithdrawsTheCancelNotice();
    void menuEntryAsksForTheCorpus();
    void fitsA1024x700Window();

private:
    // m_small: paneltest::kCorpusSentences once; m_large: many copies.
    void compute(const QString& path, const ImportanceRequest& request = {}) {
        runJob(path, request);
    }

    analysis::ImportanceResult coreResult(const QString& path,
                                          const ImportanceRequest& request) const;
};

void ImportancePanelTest::initTestCase() {
    if (startSuite()) {
        writeCorpora(QStringLiteral("tiny-sentences.txt"), QStringLiteral("many-sentences.txt"),
                     2000, paneltest::writeCorpusSentences);
    }
}

// The same run in one share on this thread, straight from the core.
analysis::ImportanceResult ImportancePanelTest::coreResult(const QString& path,
                                                           const ImportanceRequest& request) const {
    const model::Model& model = *m_window->session()->model();
    std::size_t inFile = 0;
    const auto sentences = importanceSentences(path, nullptr, request, &inFile);
    analysis::ImportanceOptions options;
    options.kind = request.kind;
    options.kvGroups = request.kvGroups;
    options.seed = request.seed;
    options.maskFraction = request.maskFraction;
    const auto corpus = analysis::importanceCorpus(model, sentences, options);
    return analysis::headImportance(model, corpus.items, options, paneltest::sequential);
}

void ImportancePanelTest::resultMatchesTheCore() {
    auto* dock = m_window->findChild<QDockWidget*>(QStringLiteral("importanceDock"));
    QVERIFY(dock);
    QVERIFY(!dock->isVisible());  // closed until it has something to show
    QSignalSpy started(&m_window->service()->job<ImportanceJob>(), &CorpusJob::started);
    ImportanceRequest request;
    request.seed = 3;
    compute(m_small, request);
    QCOMPARE(started.count(), 1);
    QTRY_VERIFY(dock->isVisible());
    const auto run = m_window->session()->document<ImportanceDocument>().run();
    QVERIFY(run);
    const analysis::ImportanceResult expected = coreResult(m_small, request);
    const analysis::ImportanceResult& shown = run->result;
    QCOMPARE(shown.nLayers, 2);
    QCOMPARE(shown.nUnits, 4);
    QCOMPARE(shown.seed, std::uint64_t{3});
    QCOMPARE(shown.targets, expected.targets);
    QCOMPARE(shown.cleanLoss, expected.cleanLoss);
    QCOMPARE(shown.deltaLoss, expected.deltaLoss);  // independent of the number of shares
    QCOMPARE(shown.order, expected.order);
    QCOMPARE(shown.pruning.size(), expected.pruning.size());
    QCOMPARE(run->sentencesUsed, std::size(paneltest::kCorpusSentences));
    // The heatmap: one cell per head, coloured on a scale symmetric around 0.
    QCOMPARE(m_panel->heatmap()->image().size(), QSize(4, 2));
    QCOMPARE(m_panel->heatmapRange().lo, -m_panel->heatmapRange().hi);
    QVERIFY(m_panel->heatmap()->cellToolTip(1, 2).contains(QStringLiteral("head 1-2 · Δ loss")));
    QCOMPARE(m_panel->heatmapRange().caption, QStringLiteral("Δ loss"));
    QCOMPARE(ImportancePanel::legendText(),
             QStringLiteral("Δ loss when the head is ablated alone"));
    // The table: every head, Δ loss as the core has it.
    ImportanceTableModel* table = m_panel->tableModel();
    QCOMPARE(table->rowCount(), 8);
    for (int row = 0; row < 8; ++row) {
        QCOMPARE(table->index(row, ImportanceTableModel::DeltaLoss)
                     .data(ImportanceTableModel::SortRole)
                     .toDouble(),
                 expected.deltaLoss[static_cast<std::size_t>(row)]);
    }
    // The pruning curve: x in percent, loss and accuracy per point.
    QLineSeries* loss = m_panel->chart()->lossSeries();
    QCOMPARE(static_cast<std::size_t>(loss->count()), expected.pruning.size());
    QCOMPARE(loss->at(0), QPointF(0, expected.cleanLoss));
    QCOMPARE(loss->at(loss->count() - 1).x(), 100.0);
    QCOMPARE(m_panel->chart()->accuracySeries()->at(5).y(), 100.0 * expected.pruning[5].accuracy);
    // The accuracy axis ends a little above the best step, not at 100 %.
    double best = 0;
    for (const analysis::PruningPoint& p : expected.pruning) {
        best = std::max(best, 100.0 * p.accuracy);
    }
    QVERIFY(m_panel->chart()->accuracyAxis()->max() >= best);
    QVERIFY(m_panel->chart()->accuracyAxis()->max() <= std::max(5.0, best * 1.15 + 5.0));
    QCOMPARE(m_panel->chart()->accuracySeries()->name(), QStringLiteral("masked-token accuracy"));
    const QString summary = m_panel->summaryText();
    for (const QString& part :
         {QStringLiteral("zero ablation of heads"),
          QStringLiteral("masked LM, 15 % masked (seed 3)"), QStringLiteral("tiny-sentences.txt"),
          QStringLiteral("6 of 6 sentences"), QStringLiteral("%1 targets").arg(expected.targets),
          QStringLiteral("clean loss %1").arg(expected.cleanLoss, 0, 'f', 3)}) {
        QVERIFY2(summary.contains(part), qPrintable(summary));
    }
}

void ImportancePanelTest::tableSorts() {
    compute(m_small);
    QTableView* view = m_panel->table();
    QSortFilterProxyModel* sorted = m_panel->sortedModel();
    const auto value = [&](int row, int column) {
        return sorted->index(row, column).data(ImportanceTableModel::SortRole).toDouble();
    };
    // By rank first: the most important head on top, Δ loss falling.
    QCOMPARE(sorted->index(0, ImportanceTableModel::Rank).data().toString(), QStringLiteral("1"));
    for (int row = 1; row < sorted->rowCount(); ++row) {
        QVERIFY(value(row - 1, ImportanceTableModel::DeltaLoss) >=
                value(row, ImportanceTableModel::DeltaLoss));
    }
    // A click on a header sorts by that column, numerically.
    view->sortByColumn(ImportanceTableModel::DeltaLoss, Qt::AscendingOrder);
    for (int row = 1; row < sorted->rowCount(); ++row) {
        QVERIFY(value(row - 1, ImportanceTableModel::DeltaLoss) <=
                value(row, ImportanceTableModel::DeltaLoss));
    }
    QCOMPARE(sorted->index(0, ImportanceTableModel::Rank).data().toString(), QStringLiteral("8"));
    view->sortByColumn(ImportanceTableModel::Accuracy, Qt::DescendingOrder);
    for (int row = 1; row < sorted->rowCount(); ++row) {
        QVERIFY(value(row - 1, ImportanceTableModel::Accuracy) >=
                value(row, ImportanceTableModel::Accuracy));
    }
    view->sortByColumn(ImportanceTableModel::Layer, Qt::DescendingOrder);
    QCOMPARE(sorted->index(0, ImportanceTableModel::Layer).data().toString(), QStringLiteral("1"));
    QCOMPARE(sorted->index(0, ImportanceTableModel::Unit).data().toString(), QStringLiteral("3"));
}

void ImportancePanelTest::clickOpensTheHead() {
    compute(m_small);
    raiseDock(QStringLiteral("importanceDock"));
    QTabWidget* tabs = leaveHeadView();
    paneltest::clickCell(m_panel->heatmap(), 1, 2);
    QCOMPARE(m_window->session()->selectedHead(), (HeadId{1, 2}));
    QCOMPARE(tabs->currentIndex(), 0);
    // A table row: the rank 1 head (the table is sorted by rank).
    tabs->setCurrentIndex(2);
    QTableView* view = m_panel->table();
    const auto& order = m_window->session()->document<ImportanceDocument>().run()->result.order;
    const int top = order.back();
    const QRect first = view->visualRect(m_panel->sortedModel()->index(0, 0));
    QVERIFY(first.isValid());
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, first.center());
    QCOMPARE(m_window->session()->selectedHead(), (HeadId{top / 4, top % 4}));
    QCOMPARE(tabs->currentIndex(), 0);
}

void ImportancePanelTest::cancelKeepsPreviousResult() {
    compute(m_small);
    const auto before = m_window->session()->document<ImportanceDocument>().run();
    QSignalSpy progress(&m_window->service()->job<ImportanceJob>(), &CorpusJob::progress);
    JobEnd end = spyOnJobEnd();
    startLongJob<ImportanceRequest>();
    QVERIFY(paneltest::progressed(progress));
    QVERIFY(progress.last().at(1).toInt() > progress.last().at(0).toInt());
    expectCancelledBy(QStringLiteral("importanceCancel"), end);
    QCOMPARE(m_window->session()->document<ImportanceDocument>().run(), before);
    QCOMPARE(m_panel->tableModel()->rowCount(), 8);
    QVERIFY(!child(QStringLiteral("importanceCancel"))->isVisible());
}

void ImportancePanelTest::badFileReportsErrorAndKeepsResult() {
    compute(m_small);
    expectMissingFileFails(QStringLiteral("missing.txt"), [&] {
        return m_window->session()->document<ImportanceDocument>().run();
    });
    QVERIFY(m_window->findChild<QPushButton*>(QStringLiteral("importanceCompute"))->isEnabled());
}

void ImportancePanelTest::exportsCsvHdf5AndFigures() {
    QVERIFY(!m_panel->exportCsv(m_dir.filePath(QStringLiteral("nothing.csv"))));
    compute(m_small);
    const auto run = m_window->session()->document<ImportanceDocument>().run();
    const QString csv = m_dir.filePath(QStringLiteral("importance.csv"));
    const QString h5 = m_dir.filePath(QStringLiteral("importance.h5"));
    exportCsvAndResults(csv, h5);
    // The CSV reads back: one unit row per head with its Δ loss, one row per pruning point.
    QFile table(csv);
    QVERIFY(table.open(QIODevice::ReadOnly | QIODevice::Text));
    const QStringList lines = QString::fromUtf8(table.readAll()).split('\n', Qt::SkipEmptyParts);
    const QStringList header = lines.value(0).split(',');
    const auto column = [&](const char* name) { return header.indexOf(QLatin1String(name)); };
    QVERIFY2(column("delta_loss") >= 0 && column("layer") >= 0 && column("head") >= 0,
             qPrintable(lines.value(0)));
    int units = 0;
    int points = 0;
    for (const QString& line : lines.mid(1)) {
        const QStringList cells = line.split(',');
        if (cells.value(column("record")) == QStringLiteral("unit")) {
            const int layer = cells.value(column("layer")).toInt();
            const int head = cells.value(column("head")).toInt();
            QCOMPARE(cells.value(column("delta_loss")).toDouble(),
                     run->result.deltaOf(layer, head));
            ++units;
        } else if (cells.value(column("record")) == QStringLiteral("pruning")) {
            ++points;
        }
    }
    QCOMPARE(units, 8);
    QCOMPARE(static_cast<std::size_t>(points), run->result.pruning.size());
    QVERIFY(QFileInfo(h5).size() > 0);
    // The figures are written at once.
    const QString png = m_dir.filePath(QStringLiteral("importance.png"));
    const QString svg = m_dir.filePath(QStringLiteral("importance.svg"));
    const QString chart = m_dir.filePath(QStringLiteral("pruning.png"));
    QVERIFY(m_panel->exportHeatmapFigure(png));
    QVERIFY(m_panel->exportHeatmapFigure(svg));
    QVERIFY(m_panel->exportChart(chart));
    QVERIFY(!QImage(png).isNull());
    QVERIFY(!QImage(chart).isNull());
    QFile vector(svg);
    QVERIFY(vector.open(QIODevice::ReadOnly));
    QVERIFY(vector.readAll().contains("Δ loss when the head is ablated alone"));
}

void ImportancePanelTest::anotherModelDropsTheResult() {
    compute(m_small);
    QVERIFY(m_panel->tableModel()->rowCount() > 0);
    openModel(paneltest::kCorpusModel);  // the same folder: still a new model
    QVERIFY(!m_window->session()->document<ImportanceDocument>().run());
    QCOMPARE(m_panel->tableModel()->rowCount(), 0);
    QVERIFY(m_panel->heatmap()->image().isNull());
    QCOMPARE(m_panel->chart()->lossSeries()->count(), 0);
    QVERIFY(!m_panel->summaryText().contains(QStringLiteral("targets")));
}

void ImportancePanelTest::keyValueGroupsOfAGroupedModel() {
    auto* units = m_window->findChild<QWidget*>(QStringLiteral("importanceUnits"));
    QVERIFY(!units->isEnabled());  // BERT: every head has its own keys and values
    openModel(paneltest::kGqaModel);
    QVERIFY(units->isEnabled());  // 8 query heads on 2 key/value heads
    QVERIFY(!m_window->findChild<QWidget*>(QStringLiteral("importanceMask"))->isEnabled());
    ImportanceRequest request;
    request.kvGroups = true;
    request.kind = forward::AblationKind::Sink;
    compute(m_small, request);
    const auto run = m_window->session()->document<ImportanceDocument>().run();
    QCOMPARE(run->result.nUnits, 2);
    QVERIFY(run->result.kvGroups);
    QCOMPARE(run->result.kind, forward::AblationKind::Sink);
    QCOMPARE(run->result.objective, analysis::ImportanceObjective::CausalLm);
    QCOMPARE(m_panel->tableModel()->rowCount(), 2 * 2);
    QCOMPARE(m_panel->tableModel()->headerData(ImportanceTableModel::Unit, Qt::Horizontal),
             QVariant(QStringLiteral("Group")));
    QCOMPARE(m_panel->chart()->accuracySeries()->name(), QStringLiteral("next-token accuracy"));
    QVERIFY(m_panel->summaryText().contains(QStringLiteral("causal LM, next token")));
    QVERIFY(m_panel->summaryText().contains(QStringLiteral("sink ablation of key/value groups")));
    const analysis::ImportanceResult expected = coreResult(m_small, request);
    QCOMPARE(run->result.deltaLoss, expected.deltaLoss);
    // Group 1 of layer 1 opens its first query head, 1-4.
    m_window->findChild<QDockWidget*>(QStringLiteral("importanceDock"))->raise();
    paneltest::clickCell(m_panel->heatmap(), 1, 1);
    QCOMPARE(m_window->session()->selectedHead(), (HeadId{1, 4}));
}

void ImportancePanelTest::menuEntryAndCommandLine() {
    auto* dock = m_window->findChild<QDockWidget*>(QStringLiteral("importanceDock"));
    QVERIFY(!dock->isVisible());
    QTRY_VERIFY(paneltest::findMenuAction(m_window.get(), QStringLiteral("importanceAction"), {}));
    QAction* entry =
        paneltest::findMenuAction(m_window.get(), QStringLiteral("importanceAction"), {});
    // In File, among the corpus entries: before the first separator.
    const QList<QAction*> file = paneltest::fileMenuActions(m_window.get());
    const auto at = file.indexOf(entry);
    QVERIFY(at > 0);
    QVERIFY(!file.at(at)->isSeparator());
    for (qsizetype i = 0; i < at; ++i) {
        QVERIFY(!file.at(i)->isSeparator());
    }
    QVERIFY(file.at(at + 1)->isSeparator() ||
            file.at(at + 1)->objectName().startsWith(QStringLiteral("survey")));  // issue 18
    QAction* toggle = paneltest::findMenuAction(m_window.get(), {}, QStringLiteral("Importance"));
    QVERIFY(toggle);  // View ▸ Importance
    toggle->trigger();
    QTRY_VERIFY(dock->isVisible());
    // --importance FILE, as the window computes it once a model is open.
    const auto line = paneltest::commandLineWith("--importance", m_small);
    QVERIFY(line && line->importance);
    QCOMPARE(*line->importance, m_small);
    QSignalSpy finished(m_panel, &ImportancePanel::computingFinished);
    computeImportanceWhenOpen(m_window.get(), m_window->session(), m_window->service(),
                              *line->importance);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QVERIFY(m_window->session()->document<ImportanceDocument>().run());
}

// The message bar kept "Head importance … cancelled" through a rerun that succeeded (issue 30).
void ImportancePanelTest::successfulRerunWithdrawsTheCancelNotice() {
    auto* bar = m_window->findChild<MessageBar*>();
    QSignalSpy progress(&m_window->service()->job<ImportanceJob>(), &CorpusJob::progress);
    QSignalSpy finished(m_panel, &ImportancePanel::computingFinished);
    startLongJob<ImportanceRequest>();
    QVERIFY(paneltest::progressed(progress));
    m_panel->cancelComputing();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QVERIFY2(bar->text().contains(QStringLiteral("cancelled")), qPrintable(bar->text()));
    QCOMPARE(bar->severity(), MessageBar::Severity::Note);  // not an error: the user's doing
    compute(m_small);
    QVERIFY2(bar->text().isEmpty(), qPrintable(bar->text()));
    // Another message shown meanwhile is not the panel's to withdraw.
    m_window->session()->reportError(QStringLiteral("something else"));
    compute(m_small);
    QCOMPARE(bar->text(), QStringLiteral("something else"));
}

// With a corpus already in the path field (a loaded treebank puts it there), File ▸ Head
// importance… started a run at once instead of asking (issue 30).
void ImportancePanelTest::menuEntryAsksForTheCorpus() {
    m_window->findChild<QLineEdit*>(QStringLiteral("importancePath"))->setText(m_small);
    QTRY_VERIFY(paneltest::findMenuAction(m_window.get(), QStringLiteral("importanceAction"), {}));
    QSignalSpy started(&m_window->service()->job<ImportanceJob>(), &CorpusJob::started);
    paneltest::findMenuAction(m_window.get(), QStringLiteral("importanceAction"), {})->trigger();
    auto* dialog = m_window->findChild<QFileDialog*>(QStringLiteral("importanceCorpusDialog"));
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isVisible());
    QCOMPARE(QFileInfo(dialog->selectedFiles().value(0)).fileName(), QFileInfo(m_small).fileName());
    QTest::qWait(100);
    QCOMPARE(started.count(), 0);
    QVERIFY(!m_panel->isComputing());
    dialog->reject();
    QCOMPARE(started.count(), 0);
}

// A wrapped summary gave the panel a height-for-width: the dock's scroll area then laid it out
// at its preferred height, and heatmap, table and chart were cut off below the dock's edge.
void ImportancePanelTest::fitsA1024x700Window() {
    // The summary is one line, elided, with the whole of it in its tool tip.
    expectFitsSmallWindow(ImportanceRequest{}, QStringLiteral("importanceDock"),
                          QStringLiteral("importanceSummary"),
                          {m_panel->heatmap(), m_panel->chart()});
}

QTEST_MAIN(ImportancePanelTest)
#include "importance_panel_test.moc"
