// The main window on Llama-family checkpoints (issue 5): heads shown with the causal mask and
// Mistral's sliding window, grouped-query sharing visible in the grid and the head view, and
// the Predictions panel agreeing with the core for the default and a clicked position.
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

#include "attnscope/forward/prediction.h"
#include "main_window.h"
#include "panel_test_support.h"
#include "panels/prediction_panel.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "views/head_grid_model.h"
#include "views/head_grid_view.h"
#include "views/heatmap_widget.h"
#include "window_test.h"

using namespace attnscope;
using namespace attnscope::app;

class DecoderWindowTest : public paneltest::FreshWindowTest {
    Q_OBJECT

private slots:
    void llamaHeadsShowCausalMaskAndKvSharing();
    void mistralWindowIsPartOfTheMask();
    void predictionsFollowTheClickedRow();
    void maskedLmPredictsAtTheMaskToken();

private:
    void openAndType(const char* name, const QString& text);
    PredictionPanel* panel() const;
    // The panel's candidates must be the core's top five at `position`.
    void expectPanelMatchesCore(int position);
};

void DecoderWindowTest::openAndType(const char* name, const QString& text) {
    QVERIFY(paneltest::openModelIn(*m_window, paneltest::checkpointDir(name), 20000));
    QVERIFY(paneltest::typeSentence(*m_window, text));
}

PredictionPanel* DecoderWindowTest::panel() const {
    return m_window->findChild<PredictionPanel*>(QStringLiteral("predictionPanel"));
}

void DecoderWindowTest::expectPanelMatchesCore(int position) {
    AnalysisSession* session = m_window->session();
    QTRY_COMPARE(panel()->position(), position);
    QTRY_COMPARE(panel()->bars()->predictions().size(), std::size_t{5});
    const auto expected =
        forward::topPredictions(*session->model(), session->result()->forward, position, 5);
    for (std::size_t i = 0; i < expected.size(); ++i) {
        QCOMPARE(panel()->bars()->predictions()[i].id, expected[i].id);
        QCOMPARE(panel()->bars()->predictions()[i].probability, expected[i].probability);
    }
}

void DecoderWindowTest::llamaHeadsShowCausalMaskAndKvSharing() {
    openAndType("llama3_gqa4_f32", QStringLiteral("the cat sat on the mat"));
    AnalysisSession* session = m_window->session();
    const auto& f = session->result()->forward;
    QCOMPARE(f.maskKind, std::string("causal"));
    QCOMPARE(f.attention({1, 6})(0, 1), 0.0f);  // upper triangle: masked, exactly 0
    QVERIFY(f.attention({1, 6})(f.nTokens - 1, 0) > 0.0f);
    auto* grid = m_window->findChild<HeadGridView*>(QStringLiteral("headGrid"));
    auto* model = qobject_cast<HeadGridModel*>(grid->model());
    QCOMPARE(model->rowCount(), 2);
    QCOMPARE(model->columnCount(), 8);  // every query head, though only 2 key/value heads
    QCOMPARE(model->index(0, 5).data(HeadGridModel::KvHeadRole).toInt(), 1);
    QVERIFY(model->index(1, 4).data(HeadGridModel::KvGroupStartRole).toBool());
    QVERIFY(!model->index(1, 3).data(HeadGridModel::KvGroupStartRole).toBool());
    QVERIFY(model->headerData(6, Qt::Horizontal, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("key/value head 1, shared by query heads 4–7")));
    session->selectHead({1, 2});
    auto* info = m_window->findChild<QLabel*>(QStringLiteral("headViewInfo"));
    QTRY_VERIFY(
        info->text().contains(QStringLiteral("key/value head 0, shared by query heads 0–3")));
}

void DecoderWindowTest::mistralWindowIsPartOfTheMask() {
    openAndType("mistral_mqa_window_f32", QStringLiteral("one two three four five six seven"));
    const auto& f = m_window->session()->result()->forward;
    QCOMPARE(f.maskKind, std::string("causal + window 5"));
    QVERIFY(f.nTokens > 6);
    QCOMPARE(f.allowed(f.nTokens - 1, f.nTokens - 6), std::uint8_t{0});
    QCOMPARE(f.allowed(f.nTokens - 1, f.nTokens - 5), std::uint8_t{1});
    QCOMPARE(f.attention({0, 3})(f.nTokens - 1, 0), 0.0f);
}

void DecoderWindowTest::predictionsFollowTheClickedRow() {
    openAndType("llama_f32", QStringLiteral("the cat sat"));
    AnalysisSession* session = m_window->session();
    QVERIFY(panel());
    // A causal LM predicts after the last token by default.
    expectPanelMatchesCore(session->result()->forward.nTokens - 1);
    auto* heatmap = m_window->findChild<HeatmapWidget*>(QStringLiteral("headHeatmap"));
    QTRY_VERIFY(!heatmap->image().isNull());
    heatmap->setFocus();  // a click that focuses the map only focuses it (issue 30)
    QTest::mouseClick(heatmap, Qt::LeftButton, {}, heatmap->cellRect(1, 0).center().toPoint());
    QCOMPARE(session->selectedToken(), 1);
    expectPanelMatchesCore(1);
}

void DecoderWindowTest::maskedLmPredictsAtTheMaskToken() {
    openAndType("bert_f32", QStringLiteral("the [MASK] sat"));
    expectPanelMatchesCore(2);  // [CLS] the [MASK] ...
    auto* heading = m_window->findChild<QLabel*>(QStringLiteral("predictionHeading"));
    QVERIFY(heading->text().contains(QStringLiteral("[MASK]")));
}

QTEST_MAIN(DecoderWindowTest)
#include "decoder_window_test.moc"
