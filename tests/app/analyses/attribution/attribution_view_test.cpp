// Attribution maps in the app (issue 19): the head view's method selector draws the head's own
// map for raw attention and the core's maps for the others (ALTI equal to computeAttribution on
// the same pass within 1e-6); flow is disabled, with the reason, above 64 tokens; a slow method
// shows its progress and Cancel, and the map shown before stays; flow and value zeroing run side
// by side, each method's newest request winning; a new sentence drops the maps; the Methods tab
// shows two methods of one layer side by side and exports them as one figure.
#include <cmath>
#include <memory>

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QPushButton>
#include <QSemaphore>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>

#include "../../../core/support/h5_reader.h"
#include "analyses/attribution/method_compare_view.h"
#include "attnscope/analysis/attribution.h"
#include "attnscope/forward/head_record.h"
#include "main_window.h"
#include "panel_test_support.h"
#include "pool_gate.h"
#include "render/heatmap_image.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "session/default_model.h"
#include "views/head_view.h"
#include "views/heatmap_widget.h"
#include "views/method_selector.h"

using namespace attnscope;
using namespace attnscope::app;
using analysis::AttributionMethod;

namespace {

constexpr int kTimeoutMs = 30000;
const QString kSentence = QStringLiteral("The keys to the cabinet are on the table.");

using attnscope::app::paneltest::PoolGate;

QImage imageOf(const Matrix& values, const render::HeatmapStyle& style) {
    return render::heatmapImage(values, nullptr, style);
}

}  // namespace

class AttributionViewTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void selectorSwitchesTheMap();
    void flowIsDisabledAboveItsLimit();
    void slowMethodShowsProgressAndCancelKeepsTheMap();
    void slowMethodReportsItsProgress();
    void slowMethodsRunSideBySideNewestWinsPerMethod();
    void newSentenceDropsTheMaps();
    void ablationsKeepTheUnablatedMaps();
    void methodsTabShowsTwoMethodsOfOneLayer();
    void exportWritesTheMapsHeld();

private:
    // Shows `words` times "word" and waits for its analysis: false unless that has more than
    // `tokens` tokens.
    bool showRepeatedWord(int words, int tokens) {
        m_session->setText(QStringLiteral("word ").repeated(words).trimmed());
        return QTest::qWaitFor(
            [&] { return m_session->result() && m_session->result()->forward.nTokens > tokens; },
            kTimeoutMs);
    }

    bool waitReady(AttributionMethod method) {
        return QTest::qWaitFor(
            [&] {
                return m_session->attributions().state(method).status == AttributionState::Ready;
            },
            kTimeoutMs);
    }

    std::unique_ptr<MainWindow> m_window;
    AnalysisSession* m_session = nullptr;
    HeadView* m_view = nullptr;
};

void AttributionViewTest::initTestCase() {
    paneltest::usePanelTestSettings(QStringLiteral("AttnScopeAttributionViewTest"));
    QVERIFY2(!defaultModelDir().isEmpty(), "resources/default_model not found");
}

void AttributionViewTest::init() {
    m_window = paneltest::windowWithModel(defaultModelDir());
    QVERIFY(m_window);
    m_session = paneltest::openWithText(*m_window, defaultModelDir(), kSentence);
    QVERIFY(m_session);
    m_view = m_window->findChild<HeadView*>(QStringLiteral("headView"));
    QVERIFY(m_view);
}

void AttributionViewTest::cleanup() {
    m_window.reset();
    m_session = nullptr;
    m_view = nullptr;
}

void AttributionViewTest::selectorSwitchesTheMap() {
    const HeadId head{2, 1};
    m_session->selectHead(head);
    QCOMPARE(comboMethod(m_view->methodCombo()), AttributionMethod::Raw);
    const auto record = m_session->headRecords().get(head);
    QVERIFY(record);
    const auto& f = m_session->result()->forward;
    QCOMPARE(m_view->heatmap()->image(),
             render::heatmapImage(record->probs, &f.allowed, m_session->heatmapStyle()));

    setComboMethod(m_view->methodCombo(), AttributionMethod::Alti);
    QCOMPARE(m_session->attributions().headViewMethod(), AttributionMethod::Alti);
    QVERIFY(waitReady(AttributionMethod::Alti));
    QTRY_COMPARE_WITH_TIMEOUT(m_view->shownMethod(), AttributionMethod::Alti, kTimeoutMs);
    const auto maps = m_session->attributions().state(AttributionMethod::Alti).maps;
    const analysis::Attribution core = analysis::computeAttribution(
        *m_session->model(), m_session->cleanResult()->forward, AttributionMethod::Alti);
    QCOMPARE(maps->layers.values.size(), core.layers.values.size());
    for (std::size_t i = 0; i < core.layers.values.size(); ++i) {
        QVERIFY(std::abs(maps->layers.values[i] - core.layers.values[i]) <= 1e-6);
    }
    QCOMPARE(m_view->heatmap()->image(),
             imageOf(attributionMatrix(core, head, true), m_session->heatmapStyle()));
    QVERIFY(m_view->heatmap()->cellToolTip(1, 0).contains(QStringLiteral("ALTI")));

    // Norm-based: the head's own map, coloured over its own range (norms, not weights).
    setComboMethod(m_view->methodCombo(), AttributionMethod::Norm);
    QVERIFY(waitReady(AttributionMethod::Norm));
    QTRY_COMPARE_WITH_TIMEOUT(m_view->shownMethod(), AttributionMethod::Norm, kTimeoutMs);
    const auto norm = m_session->attributions().state(AttributionMethod::Norm).maps;
    QCOMPARE(m_view->heatmap()->image(),
             imageOf(attributionMatrix(*norm, head, true), m_session->heatmapStyle()));

    setComboMethod(m_view->methodCombo(), AttributionMethod::Raw);
    QCOMPARE(m_view->shownMethod(), AttributionMethod::Raw);
    QCOMPARE(m_view->heatmap()->image(),
             render::heatmapImage(record->probs, &f.allowed, m_session->heatmapStyle()));
}

void AttributionViewTest::flowIsDisabledAboveItsLimit() {
    auto* model = qobject_cast<QStandardItemModel*>(m_view->methodCombo()->model());
    const int flow = m_view->methodCombo()->findData(static_cast<int>(AttributionMethod::Flow));
    QVERIFY(model->item(flow)->isEnabled());
    QVERIFY(showRepeatedWord(70, 64));
    const int n = m_session->result()->forward.nTokens;
    QVERIFY(!model->item(flow)->isEnabled());
    QCOMPARE(model->item(flow)->toolTip(),
             QStringLiteral("Attention flow solves L·n² max-flow problems; limited to 64 tokens "
                            "(this sentence has %1)")
                 .arg(n));
    // Asked anyway (by the session's API), it is not computed.
    QVERIFY(!m_session->attributions().maps(AttributionMethod::Flow));
    QCOMPARE(m_session->attributions().state(AttributionMethod::Flow).status,
             AttributionState::Missing);
}

void AttributionViewTest::slowMethodShowsProgressAndCancelKeepsTheMap() {
    const QImage raw = m_view->heatmap()->image();
    QVERIFY(!raw.isNull());
    PoolGate gate(m_window->service()->backgroundPool());
    setComboMethod(m_view->methodCombo(), AttributionMethod::ValueZeroing);
    const auto& state = m_session->attributions().state(AttributionMethod::ValueZeroing);
    QCOMPARE(state.status, AttributionState::Waiting);
    QVERIFY(m_window->service()->attributions().isBusy());
    // The previous map stays while it computes; the line above it says so, with Cancel.
    QCOMPARE(m_view->heatmap()->image(), raw);
    QCOMPARE(m_view->methodStatus()->text(), QStringLiteral("Computing value zeroing…"));
    m_session->attributions().setProgress(m_session->cleanResult(), AttributionMethod::ValueZeroing,
                                          0.4);
    QCOMPARE(m_view->methodStatus()->text(), QStringLiteral("Computing value zeroing… 40 %"));
    QVERIFY(m_view->methodStatus()->cancelButton()->isVisible());

    QTest::mouseClick(m_view->methodStatus()->cancelButton(), Qt::LeftButton);
    QCOMPARE(state.status, AttributionState::Cancelled);
    gate.open();
    QTRY_VERIFY_WITH_TIMEOUT(!m_window->service()->attributions().isBusy(), kTimeoutMs);
    QCOMPARE(state.status, AttributionState::Cancelled);
    QVERIFY(!state.maps);
    QCOMPARE(m_view->heatmap()->image(), raw);
    QCOMPARE(m_view->shownMethod(), AttributionMethod::Raw);
    QVERIFY(m_view->methodStatus()->text().contains(QStringLiteral("cancelled")));

    // Retry computes it after all.
    QTest::mouseClick(m_view->methodStatus()->retryButton(), Qt::LeftButton);
    QVERIFY(waitReady(AttributionMethod::ValueZeroing));
    QTRY_COMPARE_WITH_TIMEOUT(m_view->shownMethod(), AttributionMethod::ValueZeroing, kTimeoutMs);
}

void AttributionViewTest::slowMethodReportsItsProgress() {
    // Long enough for value zeroing's n blocks per layer to outlast the progress poll.
    QVERIFY(showRepeatedWord(110, 100));
    QSignalSpy progress(&m_session->attributions(), &AttributionMaps::progress);
    setComboMethod(m_view->methodCombo(), AttributionMethod::ValueZeroing);
    QVERIFY(waitReady(AttributionMethod::ValueZeroing));
    QVERIFY(!progress.isEmpty());
    double last = 0;
    for (const QList<QVariant>& call : progress) {
        QCOMPARE(call.at(0).value<AttributionMethod>(), AttributionMethod::ValueZeroing);
        const double f = call.at(1).toDouble();
        QVERIFY(f >= last && f <= 1.0);
        last = f;
    }
    QTRY_COMPARE_WITH_TIMEOUT(m_view->shownMethod(), AttributionMethod::ValueZeroing, kTimeoutMs);
    QVERIFY(m_view->methodStatus()->text().isEmpty());
}

void AttributionViewTest::slowMethodsRunSideBySideNewestWinsPerMethod() {
    // Flow and value zeroing asked for together (the Methods tab's pair) both arrive.
    {
        PoolGate gate(m_window->service()->backgroundPool());
        m_session->attributions().setHeadViewMethod(AttributionMethod::ValueZeroing);
        m_session->attributions().setHeadViewMethod(AttributionMethod::Flow);
        QCOMPARE(m_session->attributions().state(AttributionMethod::ValueZeroing).status,
                 AttributionState::Waiting);
        QCOMPARE(m_session->attributions().state(AttributionMethod::Flow).status,
                 AttributionState::Waiting);
    }
    QVERIFY(waitReady(AttributionMethod::Flow));
    QVERIFY(waitReady(AttributionMethod::ValueZeroing));
    QTRY_COMPARE_WITH_TIMEOUT(m_view->shownMethod(), AttributionMethod::Flow, kTimeoutMs);
    // A new sentence while value zeroing of the old one waits: only the newest pass's maps land.
    PoolGate gate(m_window->service()->backgroundPool());
    m_session->attributions().setHeadViewMethod(AttributionMethod::ValueZeroing);
    const auto oldClean = m_session->cleanResult();
    m_session->setText(QStringLiteral("A short one."));
    QVERIFY(QTest::qWaitFor([&] { return m_session->cleanResult() != oldClean; }, kTimeoutMs));
    QTRY_COMPARE_WITH_TIMEOUT(
        m_session->attributions().state(AttributionMethod::ValueZeroing).status,
        AttributionState::Waiting, kTimeoutMs);
    gate.open();
    QVERIFY(waitReady(AttributionMethod::ValueZeroing));
    QTRY_VERIFY_WITH_TIMEOUT(!m_window->service()->attributions().isBusy(), kTimeoutMs);
    QCOMPARE(m_session->attributions().state(AttributionMethod::ValueZeroing).maps->nTokens,
             m_session->cleanResult()->forward.nTokens);
}

void AttributionViewTest::newSentenceDropsTheMaps() {
    m_session->attributions().setHeadViewMethod(AttributionMethod::Rollout);
    QVERIFY(waitReady(AttributionMethod::Rollout));
    const AttributionPtr old = m_session->attributions().state(AttributionMethod::Rollout).maps;
    const auto oldClean = m_session->cleanResult();
    m_session->setText(QStringLiteral("A short one."));
    QVERIFY(QTest::qWaitFor([&] { return m_session->cleanResult() != oldClean; }, kTimeoutMs));
    QVERIFY(m_session->attributions().state(AttributionMethod::Rollout).maps != old);
    QVERIFY(waitReady(AttributionMethod::Rollout));
    QCOMPARE(m_session->attributions().state(AttributionMethod::Rollout).maps->nTokens,
             m_session->cleanResult()->forward.nTokens);
    QVERIFY(m_session->attributions().state(AttributionMethod::Rollout).maps->nTokens !=
            old->nTokens);
}

void AttributionViewTest::ablationsKeepTheUnablatedMaps() {
    m_session->attributions().setHeadViewMethod(AttributionMethod::Alti);
    QVERIFY(waitReady(AttributionMethod::Alti));
    const AttributionPtr clean = m_session->attributions().state(AttributionMethod::Alti).maps;
    m_session->ablateHead({0, 1}, forward::AblationKind::Zero);
    QVERIFY(QTest::qWaitFor([&] { return m_session->ablationEffects() != nullptr; }, kTimeoutMs));
    QVERIFY(m_session->result() != m_session->cleanResult());
    // The same maps: of the clean pass, which an ablation does not change.
    QCOMPARE(m_session->attributions().state(AttributionMethod::Alti).maps, clean);
    QCOMPARE(m_view->shownMethod(), AttributionMethod::Alti);
    auto* info = m_view->findChild<QLabel*>(QStringLiteral("headViewInfo"));
    QVERIFY2(info->text().contains(QStringLiteral("Attribution of the unablated model")),
             qPrintable(info->text()));
    auto* methods = m_window->findChild<MethodCompareView*>(QStringLiteral("methodCompareView"));
    auto* note = methods->findChild<QLabel*>(QStringLiteral("methodsAblated"));
    QVERIFY(note && !note->isHidden());
}

void AttributionViewTest::methodsTabShowsTwoMethodsOfOneLayer() {
    auto* view = m_window->findChild<MethodCompareView*>(QStringLiteral("methodCompareView"));
    QVERIFY(view);
    auto* tabs = m_window->findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    m_session->selectHead({1, 0});
    // Off screen it asks for nothing.
    QCOMPARE(m_session->attributions().state(AttributionMethod::Alti).status,
             AttributionState::Missing);
    tabs->setCurrentWidget(view);
    QCOMPARE(comboMethod(view->leftMethod()), AttributionMethod::Raw);
    QCOMPARE(comboMethod(view->rightMethod()), AttributionMethod::Alti);
    QVERIFY(waitReady(AttributionMethod::Raw));
    QVERIFY(waitReady(AttributionMethod::Alti));
    QTRY_VERIFY_WITH_TIMEOUT(!view->agreement().isEmpty(), kTimeoutMs);
    const auto raw = m_session->attributions().state(AttributionMethod::Raw).maps;
    const auto alti = m_session->attributions().state(AttributionMethod::Alti).maps;
    QCOMPARE(view->left()->image(),
             imageOf(attributionMatrix(*raw, {1, 0}, false), m_session->heatmapStyle()));
    QCOMPARE(view->right()->image(),
             imageOf(attributionMatrix(*alti, {1, 0}, false), m_session->heatmapStyle()));
    // The layer map of raw attention is the mean of the layer's heads.
    Matrix mean = Matrix::Zero(raw->nTokens, raw->nTokens);
    for (int h = 0; h < m_session->headCount(); ++h) {
        const auto record = m_session->headRecords().get({1, h});
        QVERIFY(record);
        mean += record->probs / static_cast<float>(m_session->headCount());
    }
    QVERIFY((attributionMatrix(*raw, {1, 0}, false) - mean).cwiseAbs().maxCoeff() <= 1e-6F);

    QTemporaryDir dir;
    const QString path = QDir(dir.path()).filePath(QStringLiteral("pair.png"));
    QVERIFY(view->saveFigure(path));
    QVERIFY(QFileInfo(path).size() > 0);
}

void AttributionViewTest::exportWritesTheMapsHeld() {
    m_session->attributions().setHeadViewMethod(AttributionMethod::Alti);
    QVERIFY(waitReady(AttributionMethod::Alti));
    const AttributionPtr alti = m_session->attributions().state(AttributionMethod::Alti).maps;
    QTemporaryDir dir;
    const QString path = QDir(dir.path()).filePath(QStringLiteral("maps.h5"));
    QSignalSpy finished(m_window->service(), &ComputeService::exportFinished);
    QVERIFY(m_window->service()->attributions().exportTo(path));
    QVERIFY(finished.wait(kTimeoutMs));
    QVERIFY(finished.takeFirst().at(1).toBool());
    const testing::H5Reader file(path.toStdString());
    QVERIFY(file.ok());
    const auto n = static_cast<hsize_t>(alti->nTokens);
    const auto layers = static_cast<hsize_t>(alti->nLayers);
    // Raw attention always (the file's /attention), the method computed, no other.
    QVERIFY(file.exists("attention"));
    QCOMPARE(file.dims("alti"), (std::vector<hsize_t>{layers, n, n}));
    QCOMPARE(file.values<double>("alti", H5T_NATIVE_DOUBLE), alti->layers.values);
    QVERIFY(!file.exists("value_zeroing"));
    QVERIFY(!file.exists("flow"));
    QCOMPARE(file.text("text"), kSentence.toStdString());
}

QTEST_MAIN(AttributionViewTest)
#include "attribution_view_test.moc"
