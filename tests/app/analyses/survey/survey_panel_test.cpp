// Drives the Survey dock of the real main window offscreen (issue 18): survey a tiny sentence
// file in the background with a small random BERT (real vocabulary) and find every head in the
// table, the map and the histograms; sort the table (undefined values last either way); filter
// by label (the session's label filter, the table's rows); click a row or a point to open the
// head; cancel and fail keeping the previous result; export a CSV with the labels; a .conllu
// corpus gives each head's best relation; a new model drops the result; the File menu entries
// and --survey. Issue 30: closing the dock ends its label filter; a head beats no relation's
// baseline has no best relation.
#include "analyses/survey/survey_panel.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextStream>

#include "analyses/survey/mds_scatter.h"
#include "analyses/survey/score_histograms.h"
#include "analyses/survey/survey_dock.h"
#include "analyses/survey/survey_document.h"
#include "analyses/survey/survey_job.h"
#include "analyses/survey/survey_table_model.h"
#include "command_line.h"
#include "main_window.h"
#include "panel_test_support.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "window_test.h"

using namespace attnscope;
using namespace attnscope::app;

namespace {

const paneltest::PanelSpec<SurveyPanel> kPanel{
    QStringLiteral("surveyPanel"), &SurveyPanel::surveyFinished, &SurveyPanel::startSurvey,
    &SurveyPanel::isSurveying};
constexpr int kHeads = 8;  // the BERT fixture: 2 layers × 4 heads

// The first sentences of EWT dev: enough words for several relations to reach the 100 that
// dependencyLabels asks before it compares a relation's heads (L10).
constexpr int kTreebankSentences = 150;

}  // namespace

class SurveyPanelTest : public paneltest::PanelFixture<SurveyPanel, kPanel> {
    Q_OBJECT

private slots:
    void initTestCase();

    void surveyShowsEveryHead();
    void tableSortsUndefinedLast();
    void labelFilterKeepsItsHeads();
    void clickOpensTheHead();
    void cancelKeepsPreviousResult();
    void badFileReportsErrorAndKeepsResult();
    void exportsCsvWithLabels();
    void treebankGivesBestRelations();
    void bestRelationNeedsAPositiveMargin();
    void closingTheDockEndsTheLabelFilter();
    void loadedTreebankIsNotReadAgain();
    void anotherModelDropsTheResult();
    void menuEntriesAndCommandLine();
    void fitsA1024x700Window();

private:
    // m_small: paneltest::kCorpusSentences once; m_large: many copies.
    void survey(const QString& path, const SurveyRequest& request = {}) { runJob(path, request); }

    // The current run relabelled so that the `count` broadest heads carry "broad".
    void labelBroadest(int count);

    QString m_treebank;  // the first sentences of EWT dev
};

void SurveyPanelTest::initTestCase() {
    if (!startSuite()) {
        return;
    }
    writeCorpora(QStringLiteral("tiny-sentences.txt"), QStringLiteral("many-sentences.txt"), 3000,
                 paneltest::writeCorpusSentences);
    if (QTest::currentTestFailed()) {
        return;
    }
    m_treebank = m_dir.filePath(QStringLiteral("tiny-treebank.conllu"));
    QVERIFY(!QFileInfo::exists(paneltest::kEwtDev) ||
            paneltest::copyFirstSentences(paneltest::kEwtDev, m_treebank, kTreebankSentences));
}

void SurveyPanelTest::labelBroadest(int count) {
    auto run = std::make_shared<SurveyRun>(*m_window->session()->document<SurveyDocument>().run());
    std::vector<double> entropy = run->survey.score("entropy_norm");
    std::sort(entropy.begin(), entropy.end(), std::greater<>());
    analysis::LabelRules rules;
    rules.broad = entropy.at(static_cast<std::size_t>(count - 1));
    QVERIFY(entropy.at(static_cast<std::size_t>(count)) < rules.broad);  // no tie at the bar
    relabel(*run, rules);
    m_window->session()->document<SurveyDocument>().setRun(run);
}

void SurveyPanelTest::surveyShowsEveryHead() {
    auto* dock = m_window->findChild<QDockWidget*>(QStringLiteral("surveyDock"));
    QVERIFY(dock);
    QVERIFY(!dock->isVisible());  // closed until it has something to show
    QSignalSpy started(&m_window->service()->job<SurveyJob>(), &CorpusJob::started);
    survey(m_small);
    QCOMPARE(started.count(), 1);
    QTRY_VERIFY(dock->isVisible());
    const auto run = m_window->session()->document<SurveyDocument>().run();
    QVERIFY(run);
    QCOMPARE(run->survey.sentences, std::size(paneltest::kCorpusSentences));
    QCOMPARE(run->corpusPath, m_small);
    // Every head in the table, in head order, each score as the run has it.
    SurveyTableModel* table = m_panel->tableModel();
    QCOMPARE(table->rowCount(), kHeads);
    const int prev = table->scoreColumn("prev");
    QVERIFY(prev >= SurveyTableModel::FixedColumns);
    QCOMPARE(table->columnCount(), SurveyTableModel::FixedColumns +
                                       static_cast<int>(analysis::surveyScoreNames().size()));
    for (int row = 0; row < kHeads; ++row) {
        QCOMPARE(table->index(row, prev).data(SurveyTableModel::SortRole).toDouble(),
                 run->survey.score("prev")[static_cast<std::size_t>(row)]);
    }
    QCOMPARE(table->headOf(5), (HeadId{1, 1}));
    QCOMPARE(table->headerData(prev, Qt::Horizontal).toString(), QStringLiteral("prev"));
    QVERIFY(table->headerData(prev, Qt::Horizontal, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("previous token")));
    // The probe runs on causal models only: "–" on this BERT.
    QCOMPARE(table->index(0, table->scoreColumn("probe_induction")).data().toString(),
             QStringLiteral("–"));
    QVERIFY(!m_window->findChild<QSpinBox*>(QStringLiteral("surveyProbeRepeats"))->isEnabled());
    // The map has every head; the histograms the nine headline scores.
    QCOMPARE(m_panel->scatter()->points().size(), std::size_t{kHeads});
    QCOMPARE(m_panel->histograms()->chartCount(), 9);
    const std::vector<int> bins = m_panel->histograms()->binCounts(0);  // prev
    int counted = 0;
    for (int b : bins) {
        counted += b;
    }
    QCOMPARE(counted, kHeads);
    QVERIFY2(m_panel->summaryText().contains(QStringLiteral("tiny-sentences.txt: 6 sentences")),
             qPrintable(m_panel->summaryText()));
}

// Undefined scores sort last whether ascending or descending (issue 18: "NaN shown as – and
// sorted last").
void SurveyPanelTest::tableSortsUndefinedLast() {
    survey(m_small);
    auto run = std::make_shared<SurveyRun>(*m_window->session()->document<SurveyDocument>().run());
    std::vector<double>& first = run->survey.scores.at("first");
    first = {0.5, std::nan(""), 0.1, 0.9, std::nan(""), 0.3, 0.7, 0.2};
    m_window->session()->document<SurveyDocument>().setRun(run);
    QTableView* view = m_panel->table();
    QSortFilterProxyModel* sorted = m_panel->sortedModel();
    const int column = m_panel->tableModel()->scoreColumn("first");
    const auto cell = [&](int row) { return sorted->index(row, column).data().toString(); };
    view->sortByColumn(column, Qt::AscendingOrder);
    QCOMPARE(cell(0), QStringLiteral("0.100"));
    QCOMPARE(cell(5), QStringLiteral("0.900"));
    QCOMPARE(cell(6), QStringLiteral("–"));
    QCOMPARE(cell(7), QStringLiteral("–"));
    view->sortByColumn(column, Qt::DescendingOrder);
    QCOMPARE(cell(0), QStringLiteral("0.900"));
    QCOMPARE(cell(5), QStringLiteral("0.100"));
    QCOMPARE(cell(6), QStringLiteral("–"));
    QCOMPARE(cell(7), QStringLiteral("–"));
    // Layer descending: the last head of the last layer on top.
    view->sortByColumn(SurveyTableModel::Layer, Qt::DescendingOrder);
    QCOMPARE(sorted->index(0, SurveyTableModel::Layer).data().toString(), QStringLiteral("1"));
    QCOMPARE(sorted->index(0, SurveyTableModel::Head).data().toString(), QStringLiteral("3"));
}

void SurveyPanelTest::labelFilterKeepsItsHeads() {
    survey(m_small);
    labelBroadest(3);
    QComboBox* box = m_panel->labelFilterBox();
    QCOMPARE(box->itemText(0), QStringLiteral("All heads"));
    const int broad = box->findData(QStringLiteral("broad"));
    QVERIFY(broad > 0);
    QCOMPARE(box->itemText(broad), QStringLiteral("broad (3)"));
    // The rules' thresholds as run, in the Labels column's tool tip.
    const QString rules =
        m_panel->tableModel()
            ->headerData(SurveyTableModel::Labels, Qt::Horizontal, Qt::ToolTipRole)
            .toString();
    QVERIFY2(
        rules.contains(
            QStringLiteral("L6 broad: entropy ÷ ln m ≥ %1")
                .arg(m_window->session()->document<SurveyDocument>().run()->request.rules.broad)),
        qPrintable(rules));
    box->setCurrentIndex(broad);
    emit box->activated(broad);  // as the user's choice
    QCOMPARE(m_window->session()->overlays().labelFilter(), QStringLiteral("broad"));
    QCOMPARE(m_panel->sortedModel()->rowCount(), 3);
    for (int row = 0; row < 3; ++row) {
        QCOMPARE(m_panel->sortedModel()->index(row, SurveyTableModel::Labels).data().toString(),
                 QStringLiteral("broad"));
    }
    // Set elsewhere (the head grid): the box and the table follow.
    m_window->session()->overlays().setLabelFilter({});
    QCOMPARE(box->currentIndex(), 0);
    QCOMPARE(m_panel->sortedModel()->rowCount(), kHeads);
    // A filter no head here carries is listed with its count, 0, and keeps no row.
    m_window->session()->overlays().setLabelFilter(QStringLiteral("induct"));
    QCOMPARE(box->currentText(), QStringLiteral("induct (0)"));
    QCOMPARE(m_panel->sortedModel()->rowCount(), 0);
}

void SurveyPanelTest::clickOpensTheHead() {
    survey(m_small);
    auto* tabs = m_window->findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    auto* dock = m_window->findChild<QDockWidget*>(QStringLiteral("surveyDock"));
    dock->raise();
    QTableView* view = m_panel->table();
    m_panel->table()->sortByColumn(SurveyTableModel::Layer, Qt::DescendingOrder);
    QTRY_VERIFY(view->isVisible());
    tabs->setCurrentIndex(2);
    const QRect first = view->visualRect(m_panel->sortedModel()->index(0, 0));
    QVERIFY(first.isValid());
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, first.center());
    QCOMPARE(m_window->session()->selectedHead(), (HeadId{1, 3}));
    QCOMPARE(tabs->currentIndex(), 0);
    // A point of the map: the same signal path.
    tabs->setCurrentIndex(2);
    emit m_panel->scatter()->headClicked(HeadId{0, 2});
    QCOMPARE(m_window->session()->selectedHead(), (HeadId{0, 2}));
    QCOMPARE(tabs->currentIndex(), 0);
    // The table follows a head selected elsewhere.
    m_window->session()->selectHead(HeadId{1, 0});
    const QModelIndex current = m_panel->sortedModel()->mapToSource(view->currentIndex());
    QCOMPARE(m_panel->tableModel()->headOf(current.row()), (HeadId{1, 0}));
}

void SurveyPanelTest::cancelKeepsPreviousResult() {
    survey(m_small);
    const auto before = m_window->session()->document<SurveyDocument>().run();
    QSignalSpy progress(&m_window->service()->job<SurveyJob>(), &CorpusJob::progress);
    JobEnd end = spyOnJobEnd();
    startLongJob<SurveyRequest>();
    QVERIFY(paneltest::progressed(progress));
    // In thousandths of the passes, once the corpus is read.
    QCOMPARE(progress.last().at(1).toInt(), 1000);
    QVERIFY(progress.last().at(0).toInt() < 1000);
    expectCancelledBy(QStringLiteral("surveyCancel"), end);
    QCOMPARE(m_window->session()->document<SurveyDocument>().run(), before);
    QCOMPARE(m_panel->tableModel()->rowCount(), kHeads);
    QVERIFY(!child(QStringLiteral("surveyCancel"))->isVisible());
}

void SurveyPanelTest::badFileReportsErrorAndKeepsResult() {
    survey(m_small);
    expectMissingFileFails(QStringLiteral("missing.txt"),
                           [&] { return m_window->session()->document<SurveyDocument>().run(); });
}

void SurveyPanelTest::exportsCsvWithLabels() {
    QSignalSpy errors(m_window->session(), &AnalysisSession::errorReported);
    QVERIFY(!m_panel->exportCsv(m_dir.filePath(QStringLiteral("nothing.csv"))));
    QCOMPARE(errors.count(), 1);
    survey(m_small);
    labelBroadest(2);
    const QString csv = m_dir.filePath(QStringLiteral("survey.csv"));
    const QString h5 = m_dir.filePath(QStringLiteral("survey.h5"));
    exportCsvAndResults(csv, h5);
    QFile table(csv);
    QVERIFY(table.open(QIODevice::ReadOnly | QIODevice::Text));
    const QStringList lines = QString::fromUtf8(table.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + kHeads);
    const QStringList header = lines.value(0).split(',');
    const qsizetype labels = header.indexOf(QStringLiteral("labels"));
    QVERIFY2(labels >= 0 && header.indexOf(QStringLiteral("prev")) >= 0, qPrintable(lines[0]));
    int broad = 0;
    for (const QString& line : lines.mid(1)) {
        broad += line.split(',').value(labels) == QStringLiteral("broad") ? 1 : 0;
    }
    QCOMPARE(broad, 2);
    QVERIFY(QFileInfo(h5).size() > 0);
    // The figures are written at once.
    const QString map = m_dir.filePath(QStringLiteral("map.png"));
    const QString histograms = m_dir.filePath(QStringLiteral("histograms.png"));
    QVERIFY(m_panel->exportMapFigure(map));
    QVERIFY(m_panel->exportHistogramsFigure(histograms));
    QVERIFY(QFileInfo(map).size() > 0);
    QVERIFY(QFileInfo(histograms).size() > 0);
}

void SurveyPanelTest::treebankGivesBestRelations() {
    if (!QFileInfo::exists(m_treebank)) {
        QSKIP(qPrintable(QStringLiteral("no treebank at %1").arg(paneltest::kEwtDev)));
    }
    survey(m_treebank);
    const auto run = m_window->session()->document<SurveyDocument>().run();
    QVERIFY(run->dependencies);
    QCOMPARE(run->bestRelations.size(), std::size_t{kHeads});
    SurveyTableModel* table = m_panel->tableModel();
    const int relation = table->dependencyColumn(SurveyTableModel::Relation);
    // Right after the labels, before the scores: what the head is for comes first.
    QCOMPARE(relation, SurveyTableModel::Labels + 1);
    QCOMPARE(table->scoreColumn("first"), relation + SurveyTableModel::DependencyColumns);
    QCOMPARE(table->columnCount(),
             table->scoreColumn("first") + static_cast<int>(analysis::surveyScoreNames().size()));
    QCOMPARE(table->headerData(relation, Qt::Horizontal).toString(),
             QStringLiteral("Best relation"));
    for (int row = 0; row < kHeads; ++row) {
        const analysis::BestRelation& best = run->bestRelations[static_cast<std::size_t>(row)];
        QCOMPARE(table->index(row, relation).data().toString(),
                 best.margin() > 0 ? QString::fromStdString(best.relation) : QStringLiteral("–"));
    }
    QVERIFY(!table->index(0, relation).data().toString().isEmpty());
    QVERIFY(m_panel->summaryText().contains(QStringLiteral("dependency relations scored")));
    // Without trees, no relation columns.
    survey(m_small);
    QCOMPARE(table->dependencyColumn(SurveyTableModel::Relation), -1);
}

// The table listed a "best relation" 0.25 below its relation's offset baseline (issue 30): a head
// has a best relation only where it beats the baseline, else "–" in all three columns.
void SurveyPanelTest::bestRelationNeedsAPositiveMargin() {
    survey(m_small);
    auto run = std::make_shared<SurveyRun>(*m_window->session()->document<SurveyDocument>().run());
    run->bestRelations.assign(kHeads, {});
    run->bestRelations[0] = {"det", 0.70, 0.40, -1};
    run->bestRelations[1] = {"nsubj", 0.20, 0.45, 1};
    run->bestRelations[2] = {"amod", 0.50, 0.50, -1};  // a tie beats nothing either
    m_window->session()->document<SurveyDocument>().setRun(run);
    SurveyTableModel* table = m_panel->tableModel();
    const int relation = table->dependencyColumn(SurveyTableModel::Relation);
    QVERIFY(relation >= 0);
    const auto text = [&](int row, int column) {
        return table->index(row, relation + column).data().toString();
    };
    QCOMPARE(text(0, 0), QStringLiteral("det"));
    QCOMPARE(text(0, 1), QStringLiteral("0.700"));
    QCOMPARE(text(0, 2), QStringLiteral("+0.300"));
    for (int row : {1, 2, 3}) {
        for (int column = 0; column < SurveyTableModel::DependencyColumns; ++column) {
            QCOMPARE(text(row, column), QStringLiteral("–"));
        }
    }
}

// The filter dimmed half the grid and stayed on once the dock was closed, with nothing left on
// screen to undo it (issue 30). Another dock's tab raised over it is no close.
void SurveyPanelTest::closingTheDockEndsTheLabelFilter() {
    survey(m_small);
    labelBroadest(3);
    auto* dock = m_window->findChild<QDockWidget*>(QStringLiteral("surveyDock"));
    QTRY_VERIFY(dock->isVisible());
    m_window->session()->overlays().setLabelFilter(QStringLiteral("broad"));
    auto* importance = m_window->findChild<QDockWidget*>(QStringLiteral("importanceDock"));
    importance->show();
    importance->raise();
    QTest::qWait(50);
    QCOMPARE(m_window->session()->overlays().labelFilter(), QStringLiteral("broad"));
    dock->show();
    dock->raise();
    QTRY_VERIFY(dock->isVisible());
    dock->close();
    QTRY_VERIFY(m_window->session()->overlays().labelFilter().isEmpty());
    QCOMPARE(m_panel->labelFilterBox()->currentIndex(), 0);  // "All heads"
}

// File ▸ Survey the loaded treebank surveys the session's sentences: the file is gone by then,
// so the survey can only succeed on what the session already read.
void SurveyPanelTest::loadedTreebankIsNotReadAgain() {
    if (!QFileInfo::exists(m_treebank)) {
        QSKIP(qPrintable(QStringLiteral("no treebank at %1").arg(paneltest::kEwtDev)));
    }
    const QString copy = m_dir.filePath(QStringLiteral("loaded.conllu"));
    QVERIFY(QFile::copy(m_treebank, copy));
    m_window->session()->setTreebank(
        std::make_shared<const Treebank>(Treebank::read(copy, CancelToken())));
    QVERIFY(QFile::remove(copy));
    QTRY_VERIFY(paneltest::findMenuAction(m_window.get(), QStringLiteral("surveyTreebankAction")));
    QAction* entry =
        paneltest::findMenuAction(m_window.get(), QStringLiteral("surveyTreebankAction"));
    QVERIFY(entry->isEnabled());
    QSignalSpy finished(m_panel, &SurveyPanel::surveyFinished);
    entry->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
    QCOMPARE(finished.first().at(0).toBool(), true);
    const auto run = m_window->session()->document<SurveyDocument>().run();
    QCOMPARE(run->corpusPath, copy);
    QCOMPARE(run->sentencesUsed, std::size_t{kTreebankSentences});
    QCOMPARE(run->bestRelations.size(), std::size_t{kHeads});
}

void SurveyPanelTest::anotherModelDropsTheResult() {
    survey(m_small);
    m_window->session()->overlays().setLabelFilter(QStringLiteral("broad"));
    openModel(paneltest::kGqaModel);
    QVERIFY(!m_window->session()->document<SurveyDocument>().run());
    QCOMPARE(m_panel->tableModel()->rowCount(), 0);
    QVERIFY(m_panel->scatter()->points().empty());
    QCOMPARE(m_panel->histograms()->chartCount(), 0);
    QCOMPARE(m_panel->labelFilterBox()->currentIndex(), 0);  // the model's filter is cleared
    // A causal model runs the induction probe: its options are enabled, its column filled and
    // its histogram shown instead of the detector's.
    QVERIFY(m_window->findChild<QSpinBox*>(QStringLiteral("surveyProbeRepeats"))->isEnabled());
    survey(m_small);
    SurveyTableModel* table = m_panel->tableModel();
    QVERIFY(table->index(0, table->scoreColumn("probe_induction")).data().toString() !=
            QStringLiteral("–"));
    const auto headline = headlineScores(*m_window->session()->document<SurveyDocument>().run());
    QCOMPARE(headline.size(), std::size_t{9});
    QCOMPARE(headline[6].name, std::string("probe_induction"));
    QVERIFY(m_panel->summaryText().contains(QStringLiteral("induction probe: 4 random sequences")));
}

void SurveyPanelTest::menuEntriesAndCommandLine() {
    auto* dock = m_window->findChild<QDockWidget*>(QStringLiteral("surveyDock"));
    QVERIFY(!dock->isVisible());
    QTRY_VERIFY(paneltest::findMenuAction(m_window.get(), QStringLiteral("surveyAction")));
    QAction* entry = paneltest::findMenuAction(m_window.get(), QStringLiteral("surveyAction"));
    QAction* treebank =
        paneltest::findMenuAction(m_window.get(), QStringLiteral("surveyTreebankAction"));
    QVERIFY(treebank);
    QVERIFY(!treebank->isEnabled());  // no treebank loaded
    // In File, among the corpus entries: before the first separator.
    const QList<QAction*> file = paneltest::fileMenuActions(m_window.get());
    const auto at = file.indexOf(entry);
    QVERIFY(at > 0);
    for (qsizetype i = 0; i <= at + 1; ++i) {
        QVERIFY(!file.at(i)->isSeparator());
    }
    QCOMPARE(file.at(at + 1), treebank);
    QVERIFY(file.at(at + 2)->isSeparator());
    // Without a treebank the panel's path says why nothing ran.
    QSignalSpy errors(m_window->session(), &AnalysisSession::errorReported);
    m_panel->surveyLoadedTreebank();
    QCOMPARE(errors.count(), 1);
    // --survey FILE, as the window surveys it once a model is open.
    const auto line = paneltest::commandLineWith("--survey", m_small);
    QVERIFY(line && line->survey);
    QCOMPARE(*line->survey, m_small);
    QSignalSpy finished(m_panel, &SurveyPanel::surveyFinished);
    surveyWhenOpen(m_window.get(), m_window->session(), m_window->service(), *line->survey);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QVERIFY(m_window->session()->document<SurveyDocument>().run());
    QTRY_VERIFY(dock->isVisible());
}

void SurveyPanelTest::fitsA1024x700Window() {
    expectFitsSmallWindow(SurveyRequest{}, QStringLiteral("surveyDock"),
                          QStringLiteral("surveySummary"), {m_panel->table(), m_panel->scatter()});
}

QTEST_MAIN(SurveyPanelTest)
#include "survey_panel_test.moc"
