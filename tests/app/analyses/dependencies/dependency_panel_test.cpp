// Drives the Dependencies dock of the real main window offscreen: score the first sentences of
// UD English-EWT dev in the background with a small random BERT (real vocabulary), compare the
// table with the core's own scoring, click the heatmap, cancel, fail, and see gold arcs.
#include "analyses/dependencies/dependency_panel.h"

#include <QAbstractItemModelTester>
#include <QDockWidget>
#include <QFileInfo>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStringListModel>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>

#include "analyses/dependencies/dependency_job.h"
#include "analyses/dependencies/dependency_table_model.h"
#include "attnscope/analysis/treebank_scoring.h"
#include "main_window.h"
#include "panel_test_support.h"
#include "panels/sentence_panel.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "views/head_view.h"
#include "views/heatmap_widget.h"
#include "window_test.h"

using namespace attnscope;
using namespace attnscope::app;

namespace {

const paneltest::PanelSpec<DependencyPanel> kPanel{
    QStringLiteral("dependencyPanel"), &DependencyPanel::scoringFinished,
    &DependencyPanel::startScoring, &DependencyPanel::isScoring};
constexpr int kSentences = 60;

}  // namespace

class DependencyPanelTest : public paneltest::PanelFixture<DependencyPanel, kPanel> {
    Q_OBJECT

private slots:
    void initTestCase();

    void init() {
        QVERIFY(openPanel());
        QVERIFY(child<QDockWidget>(QStringLiteral("dependencyDock")));
    }

    void tableMatchesCoreScoring();
    void heatmapCellSelectsHead();
    void cancelKeepsPreviousResults();
    void badTreebankReportsErrorAndKeepsResults();
    void goldArcsOutlinedForTreebankSentence();
    void exportsTableAndHeatmap();
    // Issue 15, defects 1, 2 and 9.
    void windowStaysResponsiveWhileScoring();
    void anotherModelDropsTheOldScores();
    void heatmapColoursSpanTheData();
    void treebankKeepsTheTypedSentence();

private:
    // m_small: the first kSentences sentences of EWT dev.
    void score() { runJob(m_small); }
};

void DependencyPanelTest::initTestCase() {
    if (!startSuite()) {
        return;
    }
    if (!QFileInfo::exists(paneltest::kEwtDev)) {
        QSKIP(qPrintable(QStringLiteral("no treebank at %1").arg(paneltest::kEwtDev)));
    }
    QVERIFY(m_dir.isValid());
    m_small = m_dir.filePath(QStringLiteral("ewt-dev-head.conllu"));
    QVERIFY(paneltest::copyFirstSentences(paneltest::kEwtDev, m_small, kSentences));
}

void DependencyPanelTest::tableMatchesCoreScoring() {
    DependencyTableModel* model = m_panel->tableModel();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    score();
    if (QTest::currentTestFailed()) {
        return;
    }
    // The same scoring, single-threaded, straight from the core.
    const auto& m = *m_window->session()->model();
    const auto sentences = text::readConllu(m_small.toStdString()).sentences;
    analysis::DependencyAccumulator acc(m.spec.nLayers, m.spec.nHeads);
    analysis::scoreSentences(m, sentences, acc);
    QCOMPARE(m_panel->results()->sentencesScored(), acc.sentencesScored());
    QCOMPARE(m_panel->results()->sentencesSkipped(), acc.sentencesSkipped());
    const analysis::RelationTable expected = acc.relationTable(100);
    QVERIFY(!expected.rows.empty());
    std::vector<analysis::RelationRow> shown = expected.rows;
    const int separator = expected.rare.empty() ? -1 : static_cast<int>(shown.size());
    QCOMPARE(model->rowCount(),
             static_cast<int>(expected.rows.size()) +
                 (expected.rare.empty() ? 0 : 1 + static_cast<int>(expected.rare.size())));
    shown.insert(shown.end(), expected.rare.begin(), expected.rare.end());
    QCOMPARE(model->index(0, DependencyTableModel::Relation).data().toString(),
             QStringLiteral("all"));
    for (int r = 0, k = 0; r < model->rowCount(); ++r) {
        if (r == separator) {
            QVERIFY(!model->rowAt(r));
            continue;
        }
        const analysis::RelationRow& e = shown[static_cast<std::size_t>(k++)];
        const auto cell = [&](int c) { return model->index(r, c).data().toString(); };
        QCOMPARE(cell(DependencyTableModel::Relation), QString::fromStdString(e.relation));
        QCOMPARE(cell(DependencyTableModel::Words), QString::number(e.count));
        QCOMPARE(cell(DependencyTableModel::BestHead),
                 QStringLiteral("%1-%2").arg(e.best.head.layer).arg(e.best.head.head));
        QCOMPARE(cell(DependencyTableModel::Direction),
                 DependencyTableModel::directionText(e.best.direction));
        QCOMPARE(cell(DependencyTableModel::Accuracy),
                 DependencyTableModel::percent(e.best.counts));
        QCOMPARE(cell(DependencyTableModel::Baseline),
                 DependencyTableModel::baselineText(e.baseline));
        QCOMPARE(model->isRare(r), separator >= 0 && r > separator);
    }
    // The heatmap shows "all" for every head.
    QCOMPARE(m_panel->currentRelation(), std::string("all"));
    QCOMPARE(m_panel->heatmap()->image().size(), QSize(m.spec.nHeads, m.spec.nLayers));
}

void DependencyPanelTest::heatmapCellSelectsHead() {
    score();
    raiseDock(QStringLiteral("dependencyDock"));
    QTabWidget* tabs = leaveHeadView();
    paneltest::clickCell(m_panel->heatmap(), 1, 2);
    QCOMPARE(m_window->session()->selectedHead(), (HeadId{1, 2}));
    QCOMPARE(tabs->currentIndex(), 0);
}

void DependencyPanelTest::cancelKeepsPreviousResults() {
    score();
    const auto before = m_panel->results();
    const int rows = m_panel->tableModel()->rowCount();
    JobEnd end = spyOnJobEnd();
    m_panel->startScoring(paneltest::kEwtDev);  // the whole dev set: cancelled long before its end
    m_panel->cancelScoring();
    paneltest::expectJobFailed(end.finished, end.notes, QStringLiteral("cancelled"), 60000);
    QCOMPARE(end.errors.count(), 0);
    QCOMPARE(m_panel->results(), before);
    QCOMPARE(m_panel->tableModel()->rowCount(), rows);
    score();  // and it can score again
}

void DependencyPanelTest::badTreebankReportsErrorAndKeepsResults() {
    score();
    expectMissingFileFails(QStringLiteral("missing.conllu"), [&] { return m_panel->results(); });
    QVERIFY(m_window->findChild<QWidget*>(QStringLiteral("openTreebank"))->isEnabled());
}

void DependencyPanelTest::goldArcsOutlinedForTreebankSentence() {
    score();
    const auto sentences = text::readConllu(m_small.toStdString()).sentences;
    const text::Sentence& s = sentences.at(3);
    const QString surface = QString::fromStdString(s.surfaceText().text);
    auto* edit = m_window->findChild<QLineEdit*>(QStringLiteral("sentenceEdit"));
    edit->setText(surface);
    AnalysisSession* session = m_window->session();
    QTRY_VERIFY_WITH_TIMEOUT(session->result() && session->result()->text == s.surfaceText().text,
                             20000);
    auto* view = m_window->findChild<HeadView*>(QStringLiteral("headView"));
    QVERIFY(view);
    QTRY_VERIFY(view->hasGold());
    // Expected: (first token of the dependent, first token of its head) for every non-root word.
    std::string text;
    const analysis::GoldSentence gold = analysis::goldSentence(s, &text);
    const auto aligned = analysis::alignWords(session->result()->tokens, gold.wordSpans);
    QVERIFY(aligned.ok());
    std::vector<std::pair<int, int>> expected;
    const auto first = [&](int w) {
        return aligned.alignment
            ->units[static_cast<std::size_t>(
                aligned.alignment->wordUnit[static_cast<std::size_t>(w)])]
            .tokens.front();
    };
    for (std::size_t w = 0; w < gold.heads.size(); ++w) {
        if (gold.heads[w] > 0) {
            expected.emplace_back(first(static_cast<int>(w)), first(gold.heads[w] - 1));
        }
    }
    QCOMPARE(view->goldCells(false), expected);
    QCOMPARE(static_cast<int>(expected.size()), static_cast<int>(gold.words.size()) - 1);
    // The word-level view: one row per unit ([CLS], words, [SEP]).
    view->setWordLevel(true);
    const int units = static_cast<int>(aligned.alignment->units.size());
    QCOMPARE(view->heatmap()->image().size(), QSize(units, units));
    QCOMPARE(view->goldCells(true).size(), expected.size());
    // A sentence not in the treebank has no gold arcs.
    edit->setText(QStringLiteral("the cat sat on the mat"));
    QTRY_VERIFY_WITH_TIMEOUT(
        session->result() && session->result()->text == "the cat sat on the mat", 20000);
    QVERIFY(!view->hasGold());
    QVERIFY(view->goldCells(false).empty());
}

void DependencyPanelTest::exportsTableAndHeatmap() {
    score();
    const QString csv = m_dir.filePath(QStringLiteral("table.csv"));
    const QString png = m_dir.filePath(QStringLiteral("heatmap.png"));
    const QString svg = m_dir.filePath(QStringLiteral("heatmap.svg"));
    QSignalSpy written(m_window->service(), &ComputeService::exportFinished);
    QVERIFY(m_panel->exportTableCsv(csv));  // in the background
    QVERIFY(m_panel->exportHeatmap(png));
    paneltest::expectExportsWritten(written, 1);
    QVERIFY(m_panel->exportHeatmap(svg));
    QFile table(csv);
    QVERIFY(table.open(QIODevice::ReadOnly));
    QVERIFY(table.readAll().contains("all"));
    QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() > 200);
    QVERIFY(QFileInfo(svg).size() > 0);
}

// Before issue 15 the scoring job ran on QThreadPool::globalInstance(), which Qt's painting
// also uses and waits for: with both of a 2-core machine's pool threads scoring, the window
// froze. Now the global pool stays idle, progress arrives with counts, and typed text is
// computed while scoring goes on.
void DependencyPanelTest::windowStaysResponsiveWhileScoring() {
    m_window->findChild<QDockWidget*>(QStringLiteral("dependencyDock"))->show();
    QSignalSpy progress(&m_window->service()->job<DependencyJob>(), &CorpusJob::progress);
    QSignalSpy finished(m_panel, &DependencyPanel::scoringFinished);
    m_panel->startScoring(paneltest::kEwtDev);  // the whole dev set: minutes, cancelled below
    QVERIFY(paneltest::progressed(progress));
    QVERIFY(m_panel->isScoring());
    // The scoring runs on the service's own pools, never on Qt's global one. Qt itself may
    // borrow the global pool for a moment while it paints (the Fusion style's group box did, one
    // run in ten): idle again while the scoring goes on is what shows the scoring is not there.
    QTRY_COMPARE_WITH_TIMEOUT(QThreadPool::globalInstance()->activeThreadCount(), 0, 5000);
    QVERIFY(m_panel->isScoring());
    const auto* bar = m_window->findChild<QProgressBar*>(QStringLiteral("dependencyProgress"));
    QVERIFY(bar->isVisible());
    QVERIFY(bar->maximum() > 0 && bar->value() > 0);
    QVERIFY(bar->text().contains(QStringLiteral("sentences")));
    auto* edit = m_window->findChild<QLineEdit*>(QStringLiteral("sentenceEdit"));
    edit->setFocus();
    edit->selectAll();
    QTest::keyClicks(edit, QStringLiteral("typed while scoring"));
    AnalysisSession* session = m_window->session();
    QTRY_VERIFY_WITH_TIMEOUT(session->result() && session->result()->text == "typed while scoring",
                             60000);
    QVERIFY(m_panel->isScoring());  // the forward pass did not wait for the scoring
    QVERIFY(child<QPushButton>(QStringLiteral("dependencyCancel"))->isEnabled());
    clickCancel(QStringLiteral("dependencyCancel"));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QCOMPARE(finished.first().at(0).toBool(), false);
}

// Before issue 15 the old model's table and heatmap stayed after opening another model, and a
// click on the heatmap opened that head of the new model.
void DependencyPanelTest::anotherModelDropsTheOldScores() {
    score();
    QVERIFY(m_panel->tableModel()->rowCount() > 0);
    openModel(
        paneltest::kCorpusModel);  // the same folder: still a new model, with new weights maybe
    QVERIFY(!m_panel->results());
    QCOMPARE(m_panel->tableModel()->rowCount(), 0);
    QVERIFY(m_panel->heatmap()->image().isNull());
    m_window->session()->selectHead({0, 0});
    raiseDock(QStringLiteral("dependencyDock"));
    HeatmapWidget* heatmap = m_panel->heatmap();
    QTRY_VERIFY(heatmap->isVisible());
    QTest::mouseClick(heatmap, Qt::LeftButton, {}, heatmap->rect().center());
    QCOMPARE(m_window->session()->selectedHead(), (HeadId{0, 0}));
}

// Before issue 15 the colours always spanned 0–1, so heads at 15 % and 40 % looked alike.
void DependencyPanelTest::heatmapColoursSpanTheData() {
    score();
    const auto acc = m_panel->results();
    const Matrix accuracy =
        acc->accuracyHeatmap(m_panel->currentRelation(), analysis::Direction::DepToHead);
    float lo = 1, hi = 0;
    for (Eigen::Index i = 0; i < accuracy.size(); ++i) {
        if (std::isfinite(accuracy.data()[i])) {
            lo = std::min(lo, accuracy.data()[i]);
            hi = std::max(hi, accuracy.data()[i]);
        }
    }
    QVERIFY(hi > lo);
    QCOMPARE(m_panel->heatmapRange().lo, static_cast<double>(lo));
    QCOMPARE(m_panel->heatmapRange().hi, static_cast<double>(hi));
    QVERIFY(m_panel->heatmapRange().caption.contains(QStringLiteral("data range")));
    m_panel->setFixedRange(true);
    QCOMPARE(m_panel->heatmapRange().lo, 0.0);
    QCOMPARE(m_panel->heatmapRange().hi, 1.0);
}

// Before issue 15 scoring a treebank put its first sentence into the sentence field.
void DependencyPanelTest::treebankKeepsTheTypedSentence() {
    auto* edit = m_window->findChild<QLineEdit*>(QStringLiteral("sentenceEdit"));
    edit->setText(QStringLiteral("My own sentence stays."));
    score();
    QCOMPARE(edit->text(), QStringLiteral("My own sentence stays."));
    QCOMPARE(m_window->session()->text(), QStringLiteral("My own sentence stays."));
    // The list has the treebank's sentences, and picking one puts it in the field.
    auto* panel = m_window->findChild<SentencePanel*>();
    QVERIFY(panel);
    QCOMPARE(panel->sentences()->rowCount(), kSentences);
    panel->step(1);
    QCOMPARE(edit->text(), panel->sentences()->index(0).data().toString());
}

QTEST_MAIN(DependencyPanelTest)
#include "dependency_panel_test.moc"
