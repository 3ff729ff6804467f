// The real main window offscreen: the "Offsets" tab sits right after "Entropy", and after
// opening a generated checkpoint and typing, its bars are the core's mean attention by offset
// for the session's head; changing the head or the mask updates them. Issue 5.
#include <cmath>

#include <QComboBox>
#include <QLineEdit>
#include <QLineSeries>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>

#include "analyses/offsets/offset_chart.h"
#include "analyses/offsets/offsets_view.h"
#include "attnscope/analysis/relative_position.h"
#include "main_window.h"
#include "panel_test_support.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "window_test.h"

using namespace attnscope;
using namespace attnscope::app;

namespace {

// The chart's bar heights against the core on the session's current result and head.
bool barsMatchCore(const AnalysisSession& session, const OffsetChart& chart, QString* why) {
    const auto result = session.result();
    analysis::RelativePositionAccumulator acc;
    acc.add(result->forward, session.selectedHead(), analysis::specialFlags(result->tokens));
    std::vector<analysis::OffsetValue> expected;
    for (const auto& v : acc.offsets()) {
        if (v.allowedQueries > 0) {
            expected.push_back(v);
        }
    }
    const QList<QPointF> outline = chart.barOutline()->points();
    if (outline.size() != static_cast<qsizetype>(4 * expected.size())) {
        *why = QString("%1 outline points for %2 offsets").arg(outline.size()).arg(expected.size());
        return false;
    }
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const QPointF top = outline[static_cast<qsizetype>(4 * i + 1)];
        if (std::abs(top.x() + OffsetChart::kHalfBar - expected[i].offset) > 1e-9 ||
            std::abs(top.y() - expected[i].meanAttention) > 1e-12) {
            *why = QString("offset %1: bar (%2, %3), core %4")
                       .arg(expected[i].offset)
                       .arg(top.x())
                       .arg(top.y())
                       .arg(expected[i].meanAttention);
            return false;
        }
    }
    return true;
}

}  // namespace

class OffsetsTabTest : public paneltest::FreshWindowTest {
    Q_OBJECT

private slots:
    void offsetsTabShowsTheCoresProfile();
};

void OffsetsTabTest::offsetsTabShowsTheCoresProfile() {
    auto* tabs = m_window->findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    QVERIFY(tabs);
    const int entropy =
        tabs->indexOf(m_window->findChild<QWidget*>(QStringLiteral("entropyCharts")));
    auto* view = m_window->findChild<OffsetsView*>(QStringLiteral("offsetsView"));
    QVERIFY(view);
    QCOMPARE(tabs->indexOf(view), entropy + 1);
    QCOMPARE(tabs->tabText(entropy + 1), QString("Offsets"));

    QVERIFY(paneltest::openModelIn(*m_window, paneltest::checkpointDir("bert_f32"), 20000));
    QVERIFY(paneltest::typeSentence(*m_window, QStringLiteral("the cat sat on the mat")));
    AnalysisSession* session = m_window->session();
    tabs->setCurrentWidget(view);
    QVERIFY(view->chart()->isVisible());
    QString why;
    QVERIFY2(barsMatchCore(*session, *view->chart(), &why), qPrintable(why));
    QVERIFY(view->chart()->shownOffsets().back().offset > 0);  // bidirectional

    session->selectHead({1, 1});
    QVERIFY(view->chart()->chart()->title().contains("L1 H1"));
    QVERIFY2(barsMatchCore(*session, *view->chart(), &why), qPrintable(why));

    // The mask panel's causal mask: after the recompute, no positive offset is left.
    auto* mask = m_window->findChild<QComboBox*>(QStringLiteral("maskKind"));
    QVERIFY(mask);
    QSignalSpy computed(m_window->service(), &ComputeService::computeFinished);
    mask->setCurrentIndex(mask->findText(QStringLiteral("Causal")));
    QTRY_VERIFY_WITH_TIMEOUT(
        !view->chart()->shownOffsets().empty() && view->chart()->shownOffsets().back().offset == 0,
        20000);
    QVERIFY2(barsMatchCore(*session, *view->chart(), &why), qPrintable(why));
}

QTEST_MAIN(OffsetsTabTest)
#include "offsets_tab_test.moc"
