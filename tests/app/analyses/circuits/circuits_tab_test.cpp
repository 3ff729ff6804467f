// The real main window offscreen on the GPT-2 fixture: the "Circuits" tab shows the core's
// weight-space circuits (a fresh analysis::weightCircuits on the session's model): the graph
// draws exactly the composition scores whose excess over the baseline passes the threshold, of
// the kinds checked; a click on a node selects that head in the session and its card shows the
// core's singular values, copying and positional scores; the table has every head and sorts;
// the CSV is attnscope-cli circuits --out's. A BERT shows its undefined scores as the core's
// NaN with the reason; an encoder-decoder shows the core's refusal. Issue 34.
#include <cmath>
#include <set>
#include <tuple>

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "analyses/circuits/circuits_table_model.h"
#include "analyses/circuits/circuits_text.h"
#include "analyses/circuits/circuits_view.h"
#include "analyses/circuits/composition_graph.h"
#include "analyses/circuits/head_card.h"
#include "attnscope/analysis/weight_circuits.h"
#include "main_window.h"
#include "panel_test_support.h"
#include "session/analysis_session.h"
#include "window_test.h"

using namespace attnscope;
using namespace attnscope::app;

namespace {

constexpr int kTimeoutMs = 30000;

using EdgeKey = std::tuple<int, int, int>;  // kind, writer, reader

// What the graph should draw, straight from the core's matrices.
std::set<EdgeKey> expectedEdges(const analysis::WeightCircuits& w, double threshold,
                                std::set<int> kinds = {0, 1, 2}) {
    std::set<EdgeKey> out;
    const std::vector<double>* scores[] = {&w.compQ, &w.compK, &w.compV};
    const auto n = static_cast<int>(w.heads.size());
    for (const int kind : kinds) {
        for (int h1 = 0; h1 < n; ++h1) {
            for (int h2 = 0; h2 < n; ++h2) {
                if (h2 / w.nHeads > h1 / w.nHeads &&
                    w.composition(*scores[kind], h1, h2) - w.baseline > threshold) {
                    out.insert({kind, h1, h2});
                }
            }
        }
    }
    return out;
}

std::set<EdgeKey> drawnEdges(const CompositionGraph& graph) {
    std::set<EdgeKey> out;
    for (const CompositionEdge& e : graph.edges()) {
        out.insert({static_cast<int>(e.kind), e.writer, e.reader});
    }
    return out;
}

}  // namespace

class CircuitsTabTest : public paneltest::FreshWindowTest {
    Q_OBJECT

private slots:
    void graphAndCardAreTheCoresScores();
    void bertShowsWhatIsUndefined();
    void encoderDecoderShowsTheReason();

private:
    CircuitsView* showTab();
};

CircuitsView* CircuitsTabTest::showTab() {
    auto* tabs = m_window->findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    auto* view = m_window->findChild<CircuitsView*>(QStringLiteral("circuitsView"));
    if (!tabs || !view) {
        return nullptr;
    }
    tabs->setCurrentWidget(view);
    return view;
}

void CircuitsTabTest::graphAndCardAreTheCoresScores() {
    auto* tabs = m_window->findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    CircuitsView* view = showTab();
    QVERIFY(view);
    QCOMPARE(tabs->tabText(tabs->indexOf(view)), QString("Circuits"));
    QVERIFY(!view->hasResult());
    AnalysisSession* session =
        open(paneltest::checkpointDir("gpt2_f32"), QStringLiteral("the quick brown fox"));
    QVERIFY(session);
    QTRY_VERIFY_WITH_TIMEOUT(view->hasResult(), kTimeoutMs);
    const analysis::WeightCircuits core = analysis::weightCircuits(*session->model());
    const analysis::WeightCircuits& shown = view->shownRun()->circuits;
    QCOMPARE(shown.compK, core.compK);
    QCOMPARE(shown.nLayers, session->layerCount());

    // The graph: exactly the core's scores above the threshold, each with its score.
    CompositionGraph* graph = view->graph();
    const double opening = view->threshold()->value();
    QCOMPARE(drawnEdges(*graph), expectedEdges(core, opening));
    QVERIFY(!graph->edges().empty());
    for (const CompositionEdge& e : graph->edges()) {
        QCOMPARE(e.score, core.composition(compositionScores(core, e.kind), e.writer, e.reader));
    }
    // A lower threshold adds edges, a higher one removes them, above every score none is left.
    view->threshold()->setValue(0.0);
    QCOMPARE(drawnEdges(*graph), expectedEdges(core, 0.0));
    const std::size_t all = graph->edges().size();
    view->threshold()->setValue(0.15);
    QCOMPARE(drawnEdges(*graph), expectedEdges(core, 0.15));
    QVERIFY(graph->edges().size() < all);
    view->threshold()->setValue(1.0);
    QVERIFY(graph->edges().empty());
    // Unchecking K leaves Q and V.
    view->threshold()->setValue(0.0);
    view->kindBox(CompositionKind::K)->setChecked(false);
    QCOMPARE(drawnEdges(*graph), expectedEdges(core, 0.0, {0, 2}));
    view->kindBox(CompositionKind::K)->setChecked(true);

    // Hovering the strongest edge names its kind and score; a node, its head.
    const CompositionEdge strongest = graph->edges().front();
    const QString edgeTip = graph->toolTipAt(graph->edgeMiddle(strongest).toPoint());
    QVERIFY2(edgeTip.contains(QStringLiteral("-composition")), qPrintable(edgeTip));
    const HeadId last{core.nLayers - 1, core.nHeads - 1};
    QVERIFY(graph->toolTipAt(graph->nodeCenter(last).toPoint())
                .startsWith(QStringLiteral("Head %1").arg(headName(last))));

    // A click on a node selects the head in the session; its card is the core's.
    for (const HeadId head : {HeadId{1, 2}, HeadId{0, 1}, HeadId{1, 0}}) {
        QTest::mouseClick(graph, Qt::LeftButton, {}, graph->nodeCenter(head).toPoint());
        QCOMPARE(session->selectedHead(), head);
        QCOMPARE(view->card()->head(), std::optional(head));
        const analysis::HeadWeights& h =
            core.heads[static_cast<std::size_t>(flatIndex(core, head))];
        const std::vector<double> qk(
            h.qkSingular.begin(),
            h.qkSingular.begin() + std::min<std::size_t>(h.qkSingular.size(), HeadCard::kSpectrum));
        QCOMPARE(view->card()->bars(0), qk);
        QCOMPARE(view->card()->bars(1).front(), h.ovSingular.front());
        const QString scores = view->card()->scores()->text();
        QVERIFY2(scores.contains(scoreText(h.copying, true)), qPrintable(scores));
        QVERIFY2(scores.contains(scoreText(h.positionalPrevious)), qPrintable(scores));
        const auto reads = strongestPartners(core, flatIndex(core, head), true, 1);
        if (!reads.empty()) {
            QVERIFY(view->card()->partners()->text().contains(
                partnerText(core, reads.front(), true).toHtmlEscaped()));
        }
    }
    QCOMPARE(tabs->currentWidget(), view);  // selecting stays on the tab

    // The table: every head; sorted by copying score, the largest first; a row selects its head.
    QTableView* table = view->table();
    QCOMPARE(table->model()->rowCount(), static_cast<int>(core.heads.size()));
    table->sortByColumn(CircuitsTableModel::Copying, Qt::DescendingOrder);
    std::size_t best = 0;
    for (std::size_t i = 0; i < core.heads.size(); ++i) {
        if (core.heads[i].copying > core.heads[best].copying) {
            best = i;
        }
    }
    QCOMPARE(table->model()->index(0, CircuitsTableModel::Copying).data().toString(),
             scoreText(core.heads[best].copying, true));
    const QRect row0 = table->visualRect(table->model()->index(0, CircuitsTableModel::Layer));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, row0.center());
    QCOMPARE(session->selectedHead(), headAt(core, static_cast<int>(best)));

    // Exports: the CLI's CSV, and the graph as a figure.
    QTemporaryDir dir;
    const QString csv = dir.filePath(QStringLiteral("circuits.csv"));
    QVERIFY(view->exportScores(csv));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readLine().trimmed(), QByteArray("score,layer,head,index,layer2,head2,value"));
    const QString png = dir.filePath(QStringLiteral("graph.png"));
    QVERIFY(view->exportFigure(png));
    QVERIFY(QFileInfo(png).size() > 5000);

    // Another sentence does not compute again: the same run.
    const auto run = view->shownRun();
    QVERIFY(paneltest::typeSentence(*m_window, QStringLiteral("a different sentence")));
    QCOMPARE(view->shownRun(), run);
}

void CircuitsTabTest::bertShowsWhatIsUndefined() {
    CircuitsView* view = showTab();
    QVERIFY(view);
    AnalysisSession* session =
        open(paneltest::checkpointDir("bert_f32"), QStringLiteral("the cat sat"));
    QVERIFY(session);
    QTRY_VERIFY_WITH_TIMEOUT(view->hasResult(), kTimeoutMs);
    const analysis::WeightCircuits core = analysis::weightCircuits(*session->model());
    QVERIFY(std::isnan(core.heads[0].copying));
    QVERIFY(std::isnan(core.heads[0].positionalPrevious));
    QCOMPARE(view->table()->model()->index(0, CircuitsTableModel::Copying).data().toString(),
             QStringLiteral("—"));
    QTest::mouseClick(view->graph(), Qt::LeftButton, {},
                      view->graph()->nodeCenter({0, 0}).toPoint());
    const QString scores = view->card()->scores()->text();
    QVERIFY2(scores.contains(copyingUndefined()), qPrintable(scores));
    QVERIFY2(scores.contains(positionalUndefined()), qPrintable(scores));
    QCOMPARE(view->card()->bars(0).front(), core.heads[0].qkSingular.front());
}

void CircuitsTabTest::encoderDecoderShowsTheReason() {
    CircuitsView* view = showTab();
    QVERIFY(view);
    QVERIFY(paneltest::openModelIn(*m_window,
                                   QStringLiteral(ATTNSCOPE_FIXTURE_DIR "/seq2seq/bart_f32")));
    QTRY_VERIFY_WITH_TIMEOUT(view->placeholderText().contains(QStringLiteral("encoder-decoder")),
                             kTimeoutMs);
    QVERIFY(!view->hasResult());
}

QTEST_MAIN(CircuitsTabTest)
#include "circuits_tab_test.moc"
