// The real main window offscreen: the "Logit lens" tab shows a row per stage and a column per
// token whose cells are the core's top tokens (analysis::logitLens on a fresh core pass over the
// session's tokens with its layer states), the last stage the model's own prediction; a target
// picked in Predictions becomes the target at the prediction position, with the core's rank
// there; the CSV has attnscope-cli lens --out's columns and the figure is written. The BERT
// family has a lens too; a checkpoint without a prediction head shows why it has none. Issue 34.
#include <QFile>
#include <QFileInfo>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "analyses/lens/lens_table_model.h"
#include "analyses/lens/lens_view.h"
#include "attnscope/analysis/logit_lens.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/prediction.h"
#include "main_window.h"
#include "panel_test_support.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "window_test.h"

using namespace attnscope;
using namespace attnscope::app;

namespace {

constexpr int kTimeoutMs = 20000;

// The core's lens of a fresh pass over the session's tokens that keeps its layer states.
analysis::LogitLens coreLens(const AnalysisSession& session,
                             const std::vector<std::int32_t>& targets = {}) {
    forward::ForwardOptions options;
    options.keepLayerStates = true;
    const auto r = forward::runForward(*session.model(),
                                       {session.cleanResult()->forward.tokenIds, {}}, options);
    return analysis::logitLens(*session.model(), r, 5, targets);
}

// Empty when every cell of the tab is the core's top token (id and text), else the first that
// is not.
QString cellMismatch(const LensTableModel& model, const analysis::LogitLens& lens) {
    if (model.rowCount() != lens.nStages || model.columnCount() != lens.nTokens) {
        return QStringLiteral("%1 × %2 cells").arg(model.rowCount()).arg(model.columnCount());
    }
    for (int s = 0; s < lens.nStages; ++s) {
        for (int p = 0; p < lens.nTokens; ++p) {
            const QModelIndex cell = model.index(s, p);
            const std::int32_t id = lens.at(s, p).top.front().id;
            if (cell.data(LensTableModel::TopIdRole).toInt() != id ||
                cell.data().toString() != model.tokenText(id) ||
                cell.data(LensTableModel::TargetRankRole).toInt() != lens.at(s, p).targetRank) {
                return QStringLiteral("stage %1, position %2").arg(s).arg(p);
            }
        }
    }
    return {};
}

}  // namespace

class LensTabTest : public paneltest::FreshWindowTest {
    Q_OBJECT

private slots:
    void cellsAreTheCoresTopTokens_data();
    void cellsAreTheCoresTopTokens();
    void pickedTargetAndExports();
    void noPredictionHeadShowsTheReason();

private:
    LensView* showTab();
};

LensView* LensTabTest::showTab() {
    auto* tabs = m_window->findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    auto* view = m_window->findChild<LensView*>(QStringLiteral("lensView"));
    if (!tabs || !view) {
        return nullptr;
    }
    tabs->setCurrentWidget(view);
    return view;
}

void LensTabTest::cellsAreTheCoresTopTokens_data() {
    QTest::addColumn<QString>("checkpoint");
    QTest::addColumn<QString>("text");
    QTest::newRow("gpt2 causal") << QString("gpt2_f32") << QString("the quick brown fox jumps");
    QTest::newRow("bert post-LN") << QString("bert_f32") << QString("the cat sat on the mat");
}

void LensTabTest::cellsAreTheCoresTopTokens() {
    QFETCH(QString, checkpoint);
    QFETCH(QString, text);
    LensView* view = showTab();
    QVERIFY(view);
    QVERIFY(!view->hasResult());
    AnalysisSession* session =
        open(paneltest::checkpointDir(checkpoint.toLatin1().constData()), text);
    QVERIFY(session);
    QTRY_VERIFY_WITH_TIMEOUT(view->hasResult(), kTimeoutMs);
    const analysis::LogitLens lens = coreLens(*session);
    QCOMPARE(lens.nStages, session->layerCount() + 1);
    const QString mismatch = cellMismatch(*view->tableModel(), lens);
    QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
    // The last stage is the model's own prediction: rank 1 everywhere.
    const forward::ForwardResult& clean = session->cleanResult()->forward;
    for (int p = 0; p < clean.nTokens; ++p) {
        QCOMPARE(
            view->tableModel()->index(lens.nStages - 1, p).data(LensTableModel::TopIdRole).toInt(),
            forward::topPredictions(*session->model(), clean, p, 1)[0].id);
    }
    QCOMPARE(view->tableModel()->headerData(0, Qt::Vertical).toString(), QString("embed"));
}

void LensTabTest::pickedTargetAndExports() {
    LensView* view = showTab();
    QVERIFY(view);
    AnalysisSession* session =
        open(paneltest::checkpointDir("gpt2_f32"), QStringLiteral("the quick brown fox jumps"));
    QVERIFY(session);
    QTRY_VERIFY_WITH_TIMEOUT(view->hasResult(), kTimeoutMs);

    // The second most probable token at the last position as the target there.
    const forward::ForwardResult& clean = session->cleanResult()->forward;
    const int position = session->predictionPosition();
    const std::int32_t second =
        forward::topPredictions(*session->model(), clean, position, 2)[1].id;
    session->pickTarget(second);
    QTRY_VERIFY_WITH_TIMEOUT(view->shownRun()->picked && view->shownRun()->picked->target == second,
                             kTimeoutMs);
    std::vector<std::int32_t> targets;
    for (int p = 0; p < clean.nTokens; ++p) {
        targets.push_back(
            p == position ? second : forward::topPredictions(*session->model(), clean, p, 1)[0].id);
    }
    const analysis::LogitLens lens = coreLens(*session, targets);
    const QString mismatch = cellMismatch(*view->tableModel(), lens);
    QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
    QCOMPARE(lens.at(lens.nStages - 1, position).targetRank, 2);
    QVERIFY(view->caption()->text().contains(QStringLiteral("picked in Predictions")));

    // A click on a cell makes its token the prediction position.
    QTableView* table = view->table();
    const QRect cell = table->visualRect(table->model()->index(1, 0));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
    QCOMPARE(session->predictionPosition(), 0);

    QTemporaryDir dir;
    const QString csv = dir.filePath(QStringLiteral("lens.csv"));
    QVERIFY(view->exportCsv(csv));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    QCOMPARE(lines.front(), QByteArray("stage,after,position,rank,id,token,probability,target_id,"
                                       "target_probability,target_rank,kl_from_final"));
    QCOMPARE(lines.size(), lens.nStages * lens.nTokens * 5 + 1);
    for (const char* name : {"lens.png", "lens.svg"}) {
        const QString figure = dir.filePath(QLatin1String(name));
        QVERIFY(view->exportFigure(figure));
        QVERIFY(QFileInfo(figure).size() > 1000);
    }
}

void LensTabTest::noPredictionHeadShowsTheReason() {
    LensView* view = showTab();
    QVERIFY(view);
    QVERIFY(open(paneltest::checkpointDir("bert_noprefix_f16"), QStringLiteral("the cat sat")));
    QTRY_VERIFY_WITH_TIMEOUT(view->placeholderText().startsWith(QStringLiteral("No logit lens")),
                             kTimeoutMs);
    QVERIFY(!view->hasResult());
    QVERIFY(!view->exportCsv(QStringLiteral("/nonexistent/lens.csv")));  // nothing to export
}

QTEST_MAIN(LensTabTest)
#include "lens_tab_test.moc"
