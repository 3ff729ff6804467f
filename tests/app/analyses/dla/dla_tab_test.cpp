// The real main window offscreen on the GPT-2 fixture: the "Logit attribution" tab shows, at the
// prediction position, every term of the core's direct logit attribution (a fresh core pass over
// the session's tokens with its layer states) for the top prediction, the heads' terms in the
// heatmap and the table largest |value| first; a click on a Predictions row makes its token the
// target, Ctrl+click another the distractor, and the terms follow the core's for them; a heatmap
// cell opens its head; the CSV has the CLI's columns. A post-LN BERT shows the core's reason
// instead, pointing to the Logit lens when the checkpoint has a head for one. The heads' terms
// show as signed bars on the model grid while they are current, and leave it when they are stale
// or unticked. Issue 34.
#include <cmath>

#include <QCheckBox>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "analyses/dla/dla_table_model.h"
#include "analyses/dla/dla_view.h"
#include "attnscope/analysis/logit_attribution.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/prediction.h"
#include "main_window.h"
#include "panel_test_support.h"
#include "panels/prediction_panel.h"
#include "panels/token_pick_field.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "views/head_grid_model.h"
#include "views/heatmap_widget.h"
#include "window_test.h"

using namespace attnscope;
using namespace attnscope::app;

namespace {

constexpr int kTimeoutMs = 20000;

// The core's attribution on a fresh pass over the session's tokens that keeps its layer states.
analysis::LogitAttribution coreAttribution(const AnalysisSession& session, int position,
                                           std::int32_t target,
                                           std::optional<std::int32_t> distractor = {}) {
    forward::ForwardOptions options;
    options.keepLayerStates = true;
    const auto r = forward::runForward(*session.model(),
                                       {session.cleanResult()->forward.tokenIds, {}}, options);
    return analysis::directLogitAttribution(*session.model(), r, position, target, distractor);
}

// Every term the same, to float rounding of one pass against another (the same numbers).
bool sameTerms(const analysis::LogitAttribution& a, const analysis::LogitAttribution& b) {
    if (a.terms.size() != b.terms.size() || a.target != b.target || a.distractor != b.distractor ||
        a.position != b.position) {
        return false;
    }
    for (std::size_t i = 0; i < a.terms.size(); ++i) {
        if (a.terms[i].name() != b.terms[i].name() ||
            std::abs(a.terms[i].value - b.terms[i].value) >
                1e-9 * std::max(1.0, std::abs(b.terms[i].value))) {
            return false;
        }
    }
    return true;
}

}  // namespace

class DlaTabTest : public paneltest::FreshWindowTest {
    Q_OBJECT

private slots:
    void termsFollowTheCoreAndThePicks();
    void headTermsShowOnTheModelGrid();
    void tokensOutsideTheTopFiveArePickedByTyping();
    void unsupportedModelShowsTheReason_data();
    void unsupportedModelShowsTheReason();

private:
    DlaView* showTab();
};

DlaView* DlaTabTest::showTab() {
    auto* tabs = m_window->findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    auto* view = m_window->findChild<DlaView*>(QStringLiteral("dlaView"));
    if (!tabs || !view) {
        return nullptr;
    }
    tabs->setCurrentWidget(view);
    return view;
}

void DlaTabTest::termsFollowTheCoreAndThePicks() {
    auto* tabs = m_window->findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    DlaView* view = showTab();
    QVERIFY(view);
    QCOMPARE(tabs->tabText(tabs->indexOf(view)), QString("Logit attribution"));
    QVERIFY(!view->hasResult());
    AnalysisSession* session =
        open(paneltest::checkpointDir("gpt2_f32"), QStringLiteral("the quick brown fox jumps"));
    QVERIFY(session);
    QTRY_VERIFY_WITH_TIMEOUT(view->hasResult(), kTimeoutMs);

    // The top prediction at the last token, every term as the core has it.
    const int position = session->predictionPosition();
    const forward::ForwardResult& clean = session->cleanResult()->forward;
    QCOMPARE(position, clean.nTokens - 1);
    const std::int32_t top = forward::topPredictions(*session->model(), clean, position, 3)[0].id;
    const analysis::LogitAttribution expected = coreAttribution(*session, position, top);
    QVERIFY(sameTerms(view->shownRun()->attribution, expected));
    QVERIFY(view->caption()->text().contains(QStringLiteral("top prediction")));

    // The heatmap: a cell per head; the table: every term, largest |value| first.
    const int layers = session->layerCount();
    const int heads = session->headCount();
    QCOMPARE(view->heatmap()->image().size(), QSize(heads, layers));
    QTableView* table = view->table();
    QCOMPARE(table->model()->rowCount(), static_cast<int>(expected.terms.size()));
    double largest = 0;
    for (const analysis::DlaTerm& t : expected.terms) {
        largest = std::max(largest, std::abs(t.value));
    }
    const QString first = table->model()->index(0, DlaTableModel::Value).data().toString();
    QVERIFY2(std::abs(std::abs(first.toDouble()) - largest) < 1e-4, qPrintable(first));

    // Predictions: a click on the second token makes it the target.
    m_window->findChild<QDockWidget*>(QStringLiteral("predictionDock"))->raise();
    auto* bars = m_window->findChild<PredictionBars*>(QStringLiteral("predictionBars"));
    QVERIFY(bars);
    QTRY_VERIFY_WITH_TIMEOUT(bars->predictions().size() >= 3, kTimeoutMs);
    const std::int32_t second = bars->predictions()[1].id;
    QTest::mouseClick(bars, Qt::LeftButton, {}, bars->rowCenter(1));
    QCOMPARE(session->pickedTokens().target, std::optional(second));
    QTRY_VERIFY_WITH_TIMEOUT(view->shownRun()->attribution.target == second, kTimeoutMs);
    QVERIFY(sameTerms(view->shownRun()->attribution, coreAttribution(*session, position, second)));
    QVERIFY(!view->caption()->text().contains(QStringLiteral("top prediction")));

    // Ctrl+click on the third: the target minus it.
    const std::int32_t third = bars->predictions()[2].id;
    QTest::mouseClick(bars, Qt::LeftButton, Qt::ControlModifier, bars->rowCenter(2));
    QCOMPARE(session->pickedTokens().distractor, std::optional(third));
    QTRY_VERIFY_WITH_TIMEOUT(view->shownRun()->attribution.distractor == std::optional(third),
                             kTimeoutMs);
    QVERIFY(sameTerms(view->shownRun()->attribution,
                      coreAttribution(*session, position, second, third)));
    QVERIFY(view->caption()->text().contains(QStringLiteral("minus")));

    // The heatmap's cell opens its head in the Head view.
    const QRectF cell = view->heatmap()->cellRect(layers - 1, heads - 1);
    QTest::mouseClick(view->heatmap(), Qt::LeftButton, {}, cell.center().toPoint());
    QCOMPARE(session->selectedHead(), HeadId(layers - 1, heads - 1));
    QCOMPARE(tabs->currentIndex(), 0);

    // The CSV: attnscope-cli dla --out's columns, a row per term.
    QTemporaryDir dir;
    const QString csv = dir.filePath(QStringLiteral("dla.csv"));
    QVERIFY(view->exportCsv(csv));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    QCOMPARE(lines.front(), QByteArray("term,kind,layer,head,value"));
    QCOMPARE(lines.size(), static_cast<int>(expected.terms.size()) + 1);
    const QString png = dir.filePath(QStringLiteral("dla.png"));
    QVERIFY(view->exportFigure(png));
    QVERIFY(QFileInfo(png).size() > 1000);

    // Back to the top prediction, no distractor.
    tabs->setCurrentWidget(view);
    session->pickTarget(std::nullopt);
    session->pickDistractor(std::nullopt);
    QTRY_VERIFY_WITH_TIMEOUT(
        view->shownRun()->attribution.target == top && !view->shownRun()->attribution.distractor,
        kTimeoutMs);
}

void DlaTabTest::headTermsShowOnTheModelGrid() {
    DlaView* view = showTab();
    QVERIFY(view);
    AnalysisSession* session =
        open(paneltest::checkpointDir("gpt2_f32"), QStringLiteral("the quick brown fox jumps"));
    QVERIFY(session);
    QTRY_VERIFY_WITH_TIMEOUT(view->hasResult(), kTimeoutMs);
    const auto* grid = m_window->findChild<QTableView*>(QStringLiteral("headGrid"));
    QVERIFY(grid);
    const auto* cells = static_cast<const HeadGridModel*>(grid->model());
    const analysis::LogitAttribution& shown = view->shownRun()->attribution;
    const int layers = session->layerCount();
    const int heads = session->headCount();
    const std::vector<double> terms = shown.headMap(layers, heads);
    double largest = 0;
    for (const double v : terms) {
        largest = std::max(largest, std::abs(v));
    }
    QVERIFY(largest > 0);
    QVERIFY(view->onGridBox()->isChecked());
    for (int l = 0; l < layers; ++l) {
        for (int h = 0; h < heads; ++h) {
            const QModelIndex cell = cells->indexOf({l, h});
            const double v = terms[static_cast<std::size_t>(l * heads + h)];
            QCOMPARE(cell.data(HeadGridModel::ScoreRole).toDouble(), v);
            QVERIFY(cell.data(HeadGridModel::ScoreSignedRole).toBool());
            // Signed bars: the share of the largest |term|, with its sign.
            QVERIFY(std::abs(cell.data(HeadGridModel::ScoreBarRole).toDouble() - v / largest) <
                    1e-12);
        }
    }
    const QString tip = cells->indexOf({0, 0}).data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QStringLiteral("Direct logit attribution to")), qPrintable(tip));
    // Unticked, the bars go; ticked, they come back.
    view->onGridBox()->setChecked(false);
    QVERIFY(session->overlays().headScores().empty());
    view->onGridBox()->setChecked(true);
    QCOMPARE(session->overlays().headScores().owner, QStringLiteral("dla"));
    // Another tab on screen and a new sentence: the terms are stale, the grid drops them.
    auto* tabs = m_window->findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    tabs->setCurrentIndex(0);
    QVERIFY(paneltest::typeSentence(*m_window, QStringLiteral("a big dog barks")));
    QTRY_VERIFY_WITH_TIMEOUT(session->overlays().headScores().empty(), kTimeoutMs);
    QVERIFY(!cells->indexOf({0, 0}).data(HeadGridModel::ScoreRole).isValid());
    // Back on the tab: the new sentence's terms.
    tabs->setCurrentWidget(view);
    QTRY_VERIFY_WITH_TIMEOUT(!session->overlays().headScores().empty(), kTimeoutMs);
}

// The field under the Predictions bars: an id, a vocabulary piece, or text that is one token;
// Enter picks the target, Ctrl+Enter the distractor; anything else says what it tokenizes to.
void DlaTabTest::tokensOutsideTheTopFiveArePickedByTyping() {
    DlaView* view = showTab();
    QVERIFY(view);
    AnalysisSession* session =
        open(paneltest::checkpointDir("gpt2_f32"), QStringLiteral("the quick brown fox jumps"));
    QVERIFY(session);
    QTRY_VERIFY_WITH_TIMEOUT(view->hasResult(), kTimeoutMs);
    auto* field = m_window->findChild<TokenPickField*>();
    QVERIFY(field);
    QLineEdit* edit = field->edit();
    const int position = session->predictionPosition();

    edit->setText(QStringLiteral("#7"));
    QTest::keyClick(edit, Qt::Key_Return);
    QCOMPARE(session->pickedTokens().target, std::optional<std::int32_t>(7));
    QTRY_VERIFY_WITH_TIMEOUT(view->shownRun()->attribution.target == 7, kTimeoutMs);
    QVERIFY(sameTerms(view->shownRun()->attribution, coreAttribution(*session, position, 7)));
    QVERIFY2(field->statusText().contains(QStringLiteral("#7")), qPrintable(field->statusText()));

    // A piece as the vocabulary stores it, as the distractor.
    const std::string piece = forward::tokenPiece(*session->model(), 9);
    edit->setText(QString::fromStdString(piece));
    QTest::keyClick(edit, Qt::Key_Return, Qt::ControlModifier);
    QCOMPARE(session->pickedTokens().distractor, std::optional<std::int32_t>(9));
    QTRY_VERIFY_WITH_TIMEOUT(
        view->shownRun()->attribution.distractor == std::optional<std::int32_t>(9), kTimeoutMs);
    QVERIFY(sameTerms(view->shownRun()->attribution, coreAttribution(*session, position, 7, 9)));

    // Text of several tokens, and an id outside the vocabulary: refused, the picks stay.
    edit->setText(QStringLiteral("the quick brown fox"));
    QVERIFY(!field->pick(false));
    QVERIFY2(field->statusText().contains(QStringLiteral("tokens")),
             qPrintable(field->statusText()));
    edit->setText(QStringLiteral("#99999999"));
    QVERIFY(!field->pick(true));
    QVERIFY2(field->statusText().contains(QStringLiteral("not a token id")),
             qPrintable(field->statusText()));
    QCOMPARE(session->pickedTokens().target, std::optional<std::int32_t>(7));
    QCOMPARE(session->pickedTokens().distractor, std::optional<std::int32_t>(9));
    session->pickTarget(std::nullopt);
    session->pickDistractor(std::nullopt);
}

void DlaTabTest::unsupportedModelShowsTheReason_data() {
    QTest::addColumn<QString>("checkpoint");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<bool>("lens");
    QTest::newRow("post-LN BERT") << QString("bert_f32") << QString("Post-LN") << true;
    QTest::newRow("BERT without MLM head")
        << QString("bert_noprefix_f16") << QString("Post-LN") << false;
}

void DlaTabTest::unsupportedModelShowsTheReason() {
    QFETCH(QString, checkpoint);
    QFETCH(QString, reason);
    QFETCH(bool, lens);
    DlaView* view = showTab();
    QVERIFY(view);
    QVERIFY(open(paneltest::checkpointDir(checkpoint.toLatin1().constData()),
                 QStringLiteral("the cat sat")));
    QTRY_VERIFY_WITH_TIMEOUT(view->placeholderText().contains(reason), kTimeoutMs);
    QVERIFY(!view->hasResult());
    // The lens where the model has one.
    QCOMPARE(view->placeholderText().contains(QStringLiteral("Logit lens")), lens);
}

QTEST_MAIN(DlaTabTest)
#include "dla_tab_test.moc"
