// Drives the Coreference dock of the real main window offscreen (issue 16): score a tiny
// CorefUD file (two documents, written here) in the background with a small random BERT (real
// vocabulary), compare the table and heatmap with the core's own scoring, cancel, fail, drop the
// scores with a new model, and show a window with its gold coreference arcs in the head view.
#include "analyses/coref/coref_panel.h"

#include <algorithm>
#include <fstream>

#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QLineEdit>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include "analyses/coref/coref_document.h"
#include "analyses/coref/coref_job.h"
#include "analyses/coref/coref_table_model.h"
#include "analyses/dependencies/dependency_job.h"
#include "analyses/dependencies/dependency_panel.h"
#include "attnscope/analysis/coref_scoring.h"
#include "main_window.h"
#include "panel_test_support.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "views/head_view.h"
#include "views/heatmap_widget.h"
#include "window_test.h"

using namespace attnscope;
using namespace attnscope::app;

namespace {

const paneltest::PanelSpec<CorefPanel> kPanel{QStringLiteral("corefPanel"),
                                              &CorefPanel::scoringFinished,
                                              &CorefPanel::startScoring, &CorefPanel::isScoring};
constexpr int kLimit = 128;

// Two documents: people (proper nouns, pronouns, a nominal "The old dog" … "The dog") and a
// city with nested mentions ("its" inside "its museums").
const char* const kCorefUd =
    "# newdoc id = people\n"
    "# sent_id = p1\n"
    "# text = Mary saw John.\n"
    "1\tMary\tMary\tPROPN\tNNP\tNumber=Sing\t2\tnsubj\t_\tEntity=(e1-person-new)\n"
    "2\tsaw\tsee\tVERB\tVBD\tTense=Past\t0\troot\t_\t_\n"
    "3\tJohn\tJohn\tPROPN\tNNP\tNumber=Sing\t2\tobj\t_\tEntity=(e2-person-new)|SpaceAfter=No\n"
    "4\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_\n"
    "\n"
    "# sent_id = p2\n"
    "# text = She greeted him warmly.\n"
    "1\tShe\tshe\tPRON\tPRP\tGender=Fem|Number=Sing|Person=3\t2\tnsubj\t_\tEntity=(e1-person-giv)\n"
    "2\tgreeted\tgreet\tVERB\tVBD\t_\t0\troot\t_\t_\n"
    "3\thim\the\tPRON\tPRP\tGender=Masc|Number=Sing|Person=3\t2\tobj\t_\tEntity=(e2-person-giv)\n"
    "4\twarmly\twarmly\tADV\tRB\t_\t2\tadvmod\t_\tSpaceAfter=No\n"
    "5\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_\n"
    "\n"
    "# sent_id = p3\n"
    "# text = The old dog slept near Mary.\n"
    "1\tThe\tthe\tDET\tDT\t_\t3\tdet\t_\tEntity=(e3-animal-new\n"
    "2\told\told\tADJ\tJJ\t_\t3\tamod\t_\t_\n"
    "3\tdog\tdog\tNOUN\tNN\tNumber=Sing\t4\tnsubj\t_\tEntity=e3)\n"
    "4\tslept\tsleep\tVERB\tVBD\t_\t0\troot\t_\t_\n"
    "5\tnear\tnear\tADP\tIN\t_\t6\tcase\t_\t_\n"
    "6\tMary\tMary\tPROPN\tNNP\tNumber=Sing\t4\tobl\t_\tEntity=(e1-person-giv)|SpaceAfter=No\n"
    "7\t.\t.\tPUNCT\t.\t_\t4\tpunct\t_\t_\n"
    "\n"
    "# sent_id = p4\n"
    "# text = The dog liked her.\n"
    "1\tThe\tthe\tDET\tDT\t_\t2\tdet\t_\tEntity=(e3-animal-giv\n"
    "2\tdog\tdog\tNOUN\tNN\tNumber=Sing\t3\tnsubj\t_\tEntity=e3)\n"
    "3\tliked\tlike\tVERB\tVBD\t_\t0\troot\t_\t_\n"
    "4\ther\tshe\tPRON\tPRP\tGender=Fem|Number=Sing|Person=3\t3\tobj\t_\tEntity=(e1-person-giv)|"
    "SpaceAfter=No\n"
    "5\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\t_\n"
    "\n"
    "# newdoc id = city\n"
    "# sent_id = c1\n"
    "# text = Paris is a big city.\n"
    "1\tParis\tParis\tPROPN\tNNP\tNumber=Sing\t5\tnsubj\t_\tEntity=(e1-place-new)\n"
    "2\tis\tbe\tAUX\tVBZ\t_\t5\tcop\t_\t_\n"
    "3\ta\ta\tDET\tDT\t_\t5\tdet\t_\t_\n"
    "4\tbig\tbig\tADJ\tJJ\t_\t5\tamod\t_\t_\n"
    "5\tcity\tcity\tNOUN\tNN\tNumber=Sing\t0\troot\t_\tSpaceAfter=No\n"
    "6\t.\t.\tPUNCT\t.\t_\t5\tpunct\t_\t_\n"
    "\n"
    "# sent_id = c2\n"
    "# text = It has many museums.\n"
    "1\tIt\tit\tPRON\tPRP\tNumber=Sing|Person=3\t2\tnsubj\t_\tEntity=(e1-place-giv)\n"
    "2\thas\thave\tVERB\tVBZ\t_\t0\troot\t_\t_\n"
    "3\tmany\tmany\tADJ\tJJ\t_\t4\tamod\t_\tEntity=(e2-abstract-new\n"
    "4\tmuseums\tmuseum\tNOUN\tNNS\tNumber=Plur\t2\tobj\t_\tEntity=e2)|SpaceAfter=No\n"
    "5\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_\n"
    "\n"
    "# sent_id = c3\n"
    "# text = Paris loves its museums.\n"
    "1\tParis\tParis\tPROPN\tNNP\tNumber=Sing\t2\tnsubj\t_\tEntity=(e1-place-giv)\n"
    "2\tloves\tlove\tVERB\tVBZ\t_\t0\troot\t_\t_\n"
    "3\tits\tits\tPRON\tPRP$\tNumber=Sing|Person=3|Poss=Yes\t4\tnmod:poss\t_\t"
    "Entity=(e2-abstract-giv(e1-place-giv)\n"
    "4\tmuseums\tmuseum\tNOUN\tNNS\tNumber=Plur\t2\tobj\t_\tEntity=e2)|SpaceAfter=No\n"
    "5\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_\n"
    "\n";

bool writeCorpus(const QString& path, int copies) {
    std::ofstream out(path.toStdString());
    for (int i = 0; i < copies; ++i) {
        out << kCorefUd;
    }
    return static_cast<bool>(out);
}

}  // namespace

class CorefPanelTest : public paneltest::PanelFixture<CorefPanel, kPanel> {
    Q_OBJECT

private slots:
    void initTestCase();

    void init() {
        QVERIFY(openPanel());
        m_panel->setWindowLimit(kLimit);
    }

    void scoresMatchTheCore();
    void heatmapShowsGroupsAndOpensHeads();
    void cancelKeepsPreviousResults();
    void badFileReportsErrorAndKeepsResults();
    void anotherModelDropsTheScores();
    void chosenWindowShowsCorefArcs();
    void exportsCsvAndHdf5();
    void runsBesideDependencyScoring();
    void modelWithoutTokenizerReportsFileAndReason();
    void viewMenuOpensTheDock();

private:
    // m_small: kCorefUd once; m_large: many copies, for cancelling mid-run.
    void score(const QString& path) { runJob(path); }

    analysis::CorefAccumulator coreScores(const QString& path) const;
};

void CorefPanelTest::initTestCase() {
    if (startSuite()) {
        writeCorpora(QStringLiteral("tiny-corefud.conllu"), QStringLiteral("large-corefud.conllu"),
                     3000, writeCorpus);
    }
}

// The same scoring in one share on this thread, straight from the core.
analysis::CorefAccumulator CorefPanelTest::coreScores(const QString& path) const {
    const model::Model& model = *m_window->session()->model();
    const auto corpus = analysis::CorefCorpus::read(path.toStdString());
    analysis::CorefScoreOptions options;
    options.maxTokens = kLimit;
    const analysis::CorefWindows windows = analysis::cutWindows(model, corpus, options);
    return analysis::scoreCoref(model, corpus, windows, options, {}, paneltest::sequential);
}

void CorefPanelTest::scoresMatchTheCore() {
    auto* dock = m_window->findChild<QDockWidget*>(QStringLiteral("corefDock"));
    auto* deps = m_window->findChild<QDockWidget*>(QStringLiteral("dependencyDock"));
    QVERIFY(dock && deps);
    QVERIFY(!dock->isVisible());  // closed until it has something to show
    score(m_small);
    QTRY_VERIFY(dock->isVisible());
    deps->show();  // Qt lists the tabs of shown docks only
    QVERIFY(m_window->tabifiedDockWidgets(dock).contains(deps));
    const analysis::CorefAccumulator expected = coreScores(m_small);
    const auto shown = m_panel->results();
    QVERIFY(shown);
    QVERIFY(expected.scored(analysis::MentionGroup::All) > 0);
    QCOMPARE(shown->layers(), expected.layers());
    QCOMPARE(shown->heads(), expected.heads());
    for (int g = 0; g < analysis::kMentionGroups; ++g) {
        const auto group = static_cast<analysis::MentionGroup>(g);
        QCOMPARE(shown->scored(group), expected.scored(group));
        for (int b = 0; b < analysis::kCorefBaselines; ++b) {
            const auto baseline = static_cast<analysis::CorefBaseline>(b);
            QCOMPARE(shown->baselineCorrect(baseline, group),
                     expected.baselineCorrect(baseline, group));
        }
        for (int l = 0; l < expected.layers(); ++l) {
            for (int h = 0; h < expected.heads(); ++h) {
                const analysis::Counts& a = shown->at({l, h}, group);
                const analysis::Counts& e = expected.at({l, h}, group);
                QCOMPARE(a.correct, e.correct);
                QCOMPARE(a.total, e.total);
                QCOMPARE(a.noPrediction, e.noPrediction);
            }
        }
        // The table's row of the group, every column, as the core's counts read.
        for (int c = 0; c < CorefTableModel::ColumnCount; ++c) {
            QCOMPARE(m_panel->tableModel()->index(g, c).data().toString(),
                     CorefTableModel::cellText(expected, group, c));
        }
    }
    const analysis::CorefCounts& e = expected.counts;
    QCOMPARE(e.documents, 2);
    QCOMPARE(e.windows, 2);  // each document fits one window of 128 tokens
    const QString counts = m_panel->countsText();
    for (const QString& part :
         {QStringLiteral("%1 documents").arg(e.documents),
          QStringLiteral("%1 windows").arg(e.windows),
          QStringLiteral("%1 mentions, %2 scored").arg(e.mentions).arg(e.scoredMentions),
          QStringLiteral("%1 without a token").arg(e.mentionsWithoutToken),
          QStringLiteral("%1 malformed").arg(e.malformedSentences)}) {
        QVERIFY2(counts.contains(part), qPrintable(counts));
    }
    QCOMPARE(m_panel->heatmap()->image().size(), QSize(expected.heads(), expected.layers()));
    QCOMPARE(m_panel->windowChooser()->count(), 2);
    QVERIFY(m_panel->windowChooser()->itemText(0).startsWith(QStringLiteral("people · window 1")));
    QVERIFY(m_panel->windowChooser()->itemText(1).startsWith(QStringLiteral("city · window 1")));
}

void CorefPanelTest::heatmapShowsGroupsAndOpensHeads() {
    score(m_small);
    const analysis::CorefAccumulator expected = coreScores(m_small);
    m_panel->selectGroup(analysis::MentionGroup::Pronoun);
    HeatmapWidget* heatmap = m_panel->heatmap();
    const analysis::Counts& c = expected.at({1, 2}, analysis::MentionGroup::Pronoun);
    const QString tip = heatmap->cellToolTip(1, 2);
    QVERIFY2(tip.contains(QStringLiteral("layer 1, head 2 · pronouns")), qPrintable(tip));
    QVERIFY2(tip.contains(
                 QStringLiteral("%1 correct of %2 predicted").arg(c.correct).arg(c.predicted())),
             qPrintable(tip));
    raiseDock(QStringLiteral("corefDock"));
    QTabWidget* tabs = leaveHeadView();
    paneltest::clickCell(heatmap, 1, 2);
    QCOMPARE(m_window->session()->selectedHead(), (HeadId{1, 2}));
    QCOMPARE(tabs->currentIndex(), 0);
}

void CorefPanelTest::cancelKeepsPreviousResults() {
    score(m_small);
    const auto before = m_panel->results();
    QSignalSpy progress(&m_window->service()->job<CorefJob>(), &CorpusJob::progress);
    JobEnd end = spyOnJobEnd();
    m_panel->startScoring(m_large);
    QVERIFY(paneltest::progressed(progress));
    expectCancelledBy(QStringLiteral("corefCancel"), end);
    QCOMPARE(m_panel->results(), before);
    QCOMPARE(m_panel->windowChooser()->count(), 2);
}

void CorefPanelTest::badFileReportsErrorAndKeepsResults() {
    score(m_small);
    expectMissingFileFails(QStringLiteral("missing.conllu"), [&] { return m_panel->results(); });
    QVERIFY(m_window->findChild<QPushButton*>(QStringLiteral("corefScore"))->isEnabled());
}

void CorefPanelTest::anotherModelDropsTheScores() {
    score(m_small);
    QVERIFY(m_panel->tableModel()->rowCount() > 0);
    openModel(paneltest::kCorpusModel);  // the same folder: still a new model
    QVERIFY(!m_panel->results());
    QVERIFY(!m_window->session()->document<CorefDocument>().scores());
    QVERIFY(m_window->session()->document<CorefDocument>().corpus());  // kept for rescoring
    QCOMPARE(m_panel->tableModel()->rowCount(), 0);
    QVERIFY(m_panel->heatmap()->image().isNull());
    QCOMPARE(m_panel->windowChooser()->count(), 0);
    QVERIFY(m_panel->countsText().isEmpty());
}

void CorefPanelTest::chosenWindowShowsCorefArcs() {
    score(m_small);
    AnalysisSession* session = m_window->session();
    const auto scores = session->document<CorefDocument>().scores();
    const std::string& text = scores->windowTexts.at(0);
    m_panel->chooseWindow(0);
    QCOMPARE(session->text(), QString::fromStdString(text));
    QCOMPARE(m_window->findChild<QLineEdit*>(QStringLiteral("sentenceEdit"))->text(),
             QString::fromStdString(text));
    QTRY_VERIFY_WITH_TIMEOUT(session->result() && session->result()->text == text, 20000);
    auto* view = m_window->findChild<HeadView*>(QStringLiteral("headView"));
    QTRY_VERIFY(view->hasCoref());
    // Expected: (first token of the mention's head word, first token of the antecedent's).
    const analysis::CorefWindow& window = scores->windows.windows.at(0);
    const analysis::WindowText words = analysis::windowText(*scores->corpus, window);
    const auto aligned =
        analysis::alignWords(session->result()->tokens, words.wordSpans, words.forms,
                             words.ownSpans, analysis::MissingWords::NoUnit);
    QVERIFY(aligned.ok());
    const auto first = [&](int w) {
        const int unit = aligned.alignment->wordUnit[static_cast<std::size_t>(w)];
        return aligned.alignment->units[static_cast<std::size_t>(unit)].tokens.front();
    };
    std::vector<std::pair<int, int>> expected;
    for (const analysis::CorefArc& arc : analysis::corefArcs(*scores->corpus, window)) {
        expected.emplace_back(first(arc.from), first(arc.to));
    }
    QVERIFY(!expected.empty());
    QCOMPARE(view->corefCells(false), expected);
    // "She" (sentence 2) → "Mary" (sentence 1): its cell's tool tip names the arc.
    const auto she = std::find(words.forms.begin(), words.forms.end(), "She") - words.forms.begin();
    const auto mary =
        std::find(words.forms.begin(), words.forms.end(), "Mary") - words.forms.begin();
    const int row = first(static_cast<int>(she));
    const int col = first(static_cast<int>(mary));
    QVERIFY(std::find(expected.begin(), expected.end(), std::pair{row, col}) != expected.end());
    const QString tip = view->heatmap()->cellToolTip(row, col);
    QVERIFY2(tip.contains(QStringLiteral("coreference: ‘She’ → ‘Mary’")), qPrintable(tip));
    QVERIFY(m_window->findChild<QWidget*>(QStringLiteral("headViewInfo"))
                ->property("text")
                .toString()
                .contains(QStringLiteral("coreference arcs")));
    // A window that is no treebank sentence still has a word level: the window's own words,
    // with the arcs on their units.
    std::vector<std::pair<int, int>> expectedWords;
    for (const analysis::CorefArc& arc : analysis::corefArcs(*scores->corpus, window)) {
        expectedWords.emplace_back(aligned.alignment->wordUnit[static_cast<std::size_t>(arc.from)],
                                   aligned.alignment->wordUnit[static_cast<std::size_t>(arc.to)]);
    }
    QVERIFY(!view->hasGold());
    view->setWordLevel(true);
    QTRY_VERIFY(view->heatmap()
                    ->cellToolTip(expectedWords.front().first, expectedWords.front().second)
                    .contains(QStringLiteral("from “")));
    QCOMPARE(view->corefCells(true), expectedWords);
    const auto sheUnit = aligned.alignment->wordUnit[static_cast<std::size_t>(she)];
    const auto maryUnit = aligned.alignment->wordUnit[static_cast<std::size_t>(mary)];
    const QString wordTip = view->heatmap()->cellToolTip(sheUnit, maryUnit);
    QVERIFY2(wordTip.contains(QStringLiteral("from “She” to “Mary”")), qPrintable(wordTip));
    QVERIFY2(wordTip.contains(QStringLiteral("coreference: ‘She’ → ‘Mary’")), qPrintable(wordTip));
    view->setWordLevel(false);
    // Another text has none.
    session->setText(QStringLiteral("the cat sat on the mat"));
    QTRY_VERIFY_WITH_TIMEOUT(
        session->result() && session->result()->text == "the cat sat on the mat", 20000);
    QVERIFY(!view->hasCoref());
    QVERIFY(view->corefCells(false).empty());
    QCOMPARE(m_panel->windowChooser()->currentIndex(), -1);
    // Typing a window's text shows its arcs too, and the chooser names it.
    session->setText(QString::fromStdString(scores->windowTexts.at(1)));
    QTRY_VERIFY_WITH_TIMEOUT(view->hasCoref(), 20000);
    QCOMPARE(m_panel->windowChooser()->currentIndex(), 1);
    // New scores while a window is on screen (or typed before the first scores came) name it.
    score(m_small);
    QCOMPARE(m_panel->windowChooser()->currentIndex(), 1);
}

void CorefPanelTest::exportsCsvAndHdf5() {
    score(m_small);
    const QString csv = m_dir.filePath(QStringLiteral("coref.csv"));
    const QString h5 = m_dir.filePath(QStringLiteral("coref.h5"));
    exportCsvAndResults(csv, h5);
    QFile table(csv);
    QVERIFY(table.open(QIODevice::ReadOnly));
    const QByteArray content = table.readAll();
    QVERIFY(content.contains("head_match"));
    QVERIFY(content.contains("pronoun"));
    QVERIFY(QFileInfo(h5).size() > 0);
}

// Coreference scoring has a job kind of its own: started while dependency scoring runs, neither
// replaces the other (with one kind, the newer job would supersede the older).
void CorefPanelTest::runsBesideDependencyScoring() {
    auto* deps = m_window->findChild<DependencyPanel*>(QStringLiteral("dependencyPanel"));
    QVERIFY(deps);
    QSignalSpy depsFinished(deps, &DependencyPanel::scoringFinished);
    QSignalSpy corefFinished(m_panel, &CorefPanel::scoringFinished);
    deps->startScoring(m_small);  // the CorefUD file has trees: a treebank too
    m_panel->startScoring(m_small);
    QVERIFY(deps->isScoring());
    QTRY_VERIFY_WITH_TIMEOUT(depsFinished.count() == 1 && corefFinished.count() == 1, 60000);
    QCOMPARE(depsFinished.first().at(0).toBool(), true);
    QCOMPARE(corefFinished.first().at(0).toBool(), true);
    QVERIFY(deps->results());
    QVERIFY(m_panel->results());
}

void CorefPanelTest::modelWithoutTokenizerReportsFileAndReason() {
    score(m_small);
    const QString bare = m_dir.filePath(QStringLiteral("no_tokenizer"));
    QVERIFY(QDir().mkpath(bare));
    const QString from = QStringLiteral(ATTNSCOPE_FIXTURE_DIR "/checkpoints/bert_f32/");
    for (const char* file : {"config.json", "model.safetensors"}) {
        QFile::remove(bare + QLatin1Char('/') + QLatin1String(file));
        QVERIFY(
            QFile::copy(from + QLatin1String(file), bare + QLatin1Char('/') + QLatin1String(file)));
    }
    openModel(bare);
    QVERIFY(!m_window->session()->model()->tokenizer);
    QSignalSpy errors(m_window->session(), &AnalysisSession::errorReported);
    QSignalSpy finished(m_panel, &CorefPanel::scoringFinished);
    m_panel->startScoring(m_small);
    paneltest::expectJobFailed(finished, errors, QStringLiteral("tiny-corefud.conllu"), 30000);
    const QString message = errors.first().at(0).toString();
    QVERIFY2(message.contains(QStringLiteral("tokenizer")), qPrintable(message));
    QVERIFY(m_window->findChild<QPushButton*>(QStringLiteral("corefScore"))->isEnabled());
}

void CorefPanelTest::viewMenuOpensTheDock() {
    auto* dock = m_window->findChild<QDockWidget*>(QStringLiteral("corefDock"));
    QVERIFY(!dock->isVisible());
    QAction* toggle = paneltest::findMenuAction(m_window.get(), {}, QStringLiteral("Coreference"));
    QVERIFY(toggle);
    toggle->trigger();
    QTRY_VERIFY(dock->isVisible());
    // Before any run the dock says what it is for.
    QVERIFY(m_window->findChild<QWidget*>(QStringLiteral("corefSummary"))->isVisible());
}

QTEST_MAIN(CorefPanelTest)
#include "coref_panel_test.moc"
