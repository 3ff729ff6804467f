// The real main window offscreen on a Qwen3 checkpoint (per-head QK-norm): the "Saturation" tab
// plots every head at the core's statistics of the session's result; switching QK-norm off
// recomputes every view with the what-if (the core's pass with the same options, bit for bit),
// brings the model as it is in as grey rings, and "Model as is" switches it back; clicking a
// point selects its head. Issue 33.
#include <cmath>

#include <QComboBox>
#include <QPushButton>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

#include "analyses/saturation/saturation_scatter.h"
#include "analyses/saturation/saturation_view.h"
#include "attnscope/analysis/saturation.h"
#include "attnscope/forward/forward_pass.h"
#include "main_window.h"
#include "panel_test_support.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "window_test.h"

using namespace attnscope;
using namespace attnscope::app;

namespace {

// The statistics of a fresh core pass over the session's tokens with `options`.
std::vector<analysis::HeadSaturation> coreStats(const AnalysisSession& session,
                                                const forward::ForwardOptions& options) {
    const auto r =
        forward::runForward(*session.model(), {session.result()->forward.tokenIds, {}}, options);
    return analysis::saturationStats(r);
}

bool sameStats(const std::vector<analysis::HeadSaturation>& a,
               const std::vector<analysis::HeadSaturation>& b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].maxAbsLogit != b[i].maxAbsLogit || a[i].meanEntropy != b[i].meanEntropy ||
            a[i].oneHotRows != b[i].oneHotRows || a[i].maxAbsScaled != b[i].maxAbsScaled) {
            return false;
        }
    }
    return true;
}

int pointCount(const SaturationScatter& scatter) {
    int n = 0;
    for (const QScatterSeries* s : scatter.layerSeries()) {
        n += static_cast<int>(s->count());
    }
    return n;
}

}  // namespace

class SaturationTabTest : public paneltest::FreshWindowTest {
    Q_OBJECT

private slots:
    void whatIfsRecomputeAndTheBaselineFollows();
};

void SaturationTabTest::whatIfsRecomputeAndTheBaselineFollows() {
    auto* tabs = m_window->findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    auto* view = m_window->findChild<SaturationView*>(QStringLiteral("saturationView"));
    QVERIFY(tabs && view);
    QCOMPARE(tabs->tabText(tabs->indexOf(view)), QString("Saturation"));
    QVERIFY(!view->hasResult());

    QVERIFY(
        paneltest::openModelIn(*m_window, paneltest::checkpointDir("qwen3_gqa_qknorm_f32"), 20000));
    QVERIFY(paneltest::typeSentence(*m_window, QStringLiteral("the cat sat on the mat")));
    AnalysisSession* session = m_window->session();
    tabs->setCurrentWidget(view);
    QVERIFY(view->hasResult());
    const int heads = session->layerCount() * session->headCount();
    QCOMPARE(pointCount(*view->scatter()), heads);
    forward::ForwardOptions plain;
    plain.recordUnnormed = true;
    QVERIFY(sameStats(view->shown(), coreStats(*session, plain)));
    QVERIFY(view->baseline().empty());
    // A QK-norm model: the logits before its norm are recorded, and differ.
    QVERIFY(std::isfinite(view->shown()[0].maxAbsUnnormed));
    QVERIFY(view->shown()[0].maxAbsUnnormed != view->shown()[0].maxAbsScaled);

    auto* qk = m_window->findChild<QComboBox*>(QStringLiteral("whatIfQkNorm"));
    QVERIFY(qk);
    qk->setCurrentIndex(1);  // off
    QCOMPARE(session->attentionWhatIf().qkNorm, forward::QkNormChoice::Off);
    QTRY_VERIFY_WITH_TIMEOUT(!view->baseline().empty(), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(
        session->result() && session->result()->forward.whatIf.qkNorm == forward::QkNormChoice::Off,
        20000);
    forward::ForwardOptions off = plain;
    off.whatIf.qkNorm = forward::QkNormChoice::Off;
    QVERIFY(sameStats(view->shown(), coreStats(*session, off)));
    QVERIFY(sameStats(view->baseline(), coreStats(*session, plain)));
    QVERIFY(!sameStats(view->shown(), view->baseline()));
    QCOMPARE(static_cast<int>(view->scatter()->baselineSeries()->count()), heads);

    // Clicking a point selects its head.
    const SaturationPoint& p = view->scatter()->points().back();
    emit view->scatter()->layerSeries().back()->clicked(QPointF(p.x, p.y));
    QCOMPARE(session->selectedHead(), p.head);

    auto* reset = m_window->findChild<QPushButton*>(QStringLiteral("whatIfReset"));
    QVERIFY(reset && reset->isEnabled());
    reset->click();
    QVERIFY(session->showsModelAsIs());
    QCOMPARE(qk->currentIndex(), 0);
    QTRY_VERIFY_WITH_TIMEOUT(
        view->baseline().empty() && sameStats(view->shown(), coreStats(*session, plain)), 20000);
}

QTEST_MAIN(SaturationTabTest)
#include "saturation_tab_test.moc"
