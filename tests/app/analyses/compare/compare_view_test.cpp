// Issue 15, the Compare tab: head B starts on another head than A (not a blank difference),
// every map's tool tip gives the tokens and the values, the Jensen–Shannon divergence says its
// log base and range, head B can be picked in the model grid, and the maps grow with the view.
// Issue 30: B follows A into another layer until a B is picked.
#include "analyses/compare/compare_view.h"

#include <cmath>

#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QTableWidget>
#include <QTest>

#include "session/analysis_session.h"
#include "view_test_data.h"
#include "views/head_grid_model.h"
#include "views/head_grid_view.h"
#include "views/heatmap_widget.h"
#include "widget_test.h"

using namespace attnscope;
using attnscope::app::AnalysisSession;
using attnscope::app::CompareView;
using attnscope::app::HeadGridModel;
using attnscope::app::HeadGridView;
using attnscope::app::HeatmapWidget;

namespace {

constexpr int kTokens = 8;

struct Setup {
    AnalysisSession session;
    CompareView view{&session};
    std::shared_ptr<const analysis::SentenceAnalysis> result =
        test::syntheticAnalysis(2, 3, kTokens);

    Setup() {
        session.setModel(test::shapeOnlyModel(2, 3), QStringLiteral("shape"));
        session.setResult(result);
    }
};

}  // namespace

class CompareViewTest : public test::WidgetTest {
    Q_OBJECT

private slots:
    void headBStartsOnTheNextHead();
    void headBFollowsAUntilPicked();
    void toolTipsGiveTokensAndValues();
    void divergenceSaysItsUnitAndRange();
    void gridPicksHeadB();
    void mapsGrowWithTheView();
};

void CompareViewTest::headBStartsOnTheNextHead() {
    Setup s;
    QCOMPARE(s.session.selectedHead(), (HeadId{0, 0}));
    QCOMPARE(s.session.compareHead(), (HeadId{0, 1}));
    QVERIFY(s.view.totalDivergence() > 0.0);
    // A B chosen on purpose is kept, the same head as A included.
    s.session.setCompareHead({0, 0});
    QCOMPARE(s.session.compareHead(), (HeadId{0, 0}));
    QCOMPARE(s.view.totalDivergence(), 0.0);
    // The default follows A's layer and wraps within it.
    AnalysisSession other;
    other.selectHead({1, 2});
    CompareView view(&other);
    other.setModel(test::shapeOnlyModel(2, 3), QStringLiteral("shape"));
    QVERIFY(other.compareHead() != other.selectedHead());
}

// The README: "head B starts on the next head of A's layer". A moved to another layer left B
// behind in the old one (issue 30).
void CompareViewTest::headBFollowsAUntilPicked() {
    Setup s;
    QCOMPARE(s.session.compareHead(), (HeadId{0, 1}));
    s.session.selectHead({1, 0});
    QCOMPARE(s.session.compareHead(), (HeadId{1, 1}));
    s.session.selectHead({1, 2});
    QCOMPARE(s.session.compareHead(), (HeadId{1, 0}));  // wraps within the layer
    // A's spin boxes move A, and B with it.
    s.view.findChild<QSpinBox*>(QStringLiteral("compareLayerA"))->setValue(0);
    QCOMPARE(s.session.selectedHead(), (HeadId{0, 2}));
    QCOMPARE(s.session.compareHead(), (HeadId{0, 0}));
    QVERIFY(s.session.compareFollowsSelected());
    // B picked in its spin boxes stays where it was put, whatever A does.
    s.view.findChild<QSpinBox*>(QStringLiteral("compareLayerB"))->setValue(1);
    QCOMPARE(s.session.compareHead(), (HeadId{1, 0}));
    QVERIFY(!s.session.compareFollowsSelected());
    s.session.selectHead({0, 1});
    QCOMPARE(s.session.compareHead(), (HeadId{1, 0}));
    QCOMPARE(s.view.findChild<QSpinBox*>(QStringLiteral("compareLayerB"))->value(), 1);
    // A new model starts over: B follows again.
    s.session.setModel(test::shapeOnlyModel(2, 3), QStringLiteral("shape"));
    QVERIFY(s.session.compareFollowsSelected());
    s.session.selectHead({1, 1});
    QCOMPARE(s.session.compareHead(), (HeadId{1, 2}));
}

void CompareViewTest::toolTipsGiveTokensAndValues() {
    Setup s;
    const auto& f = s.result->forward;
    const int q = 5;
    const int k = 2;
    const QString expectedA = QString::number(f.attention({0, 0})(q, k), 'f', 6);
    const QString expectedB = QString::number(f.attention({0, 1})(q, k), 'f', 6);
    const QString tip = s.view.heatmapA()->cellToolTip(q, k);
    QVERIFY2(tip.contains(QString::fromStdString(s.result->label(q))), qPrintable(tip));
    QVERIFY2(tip.contains(QString::fromStdString(s.result->label(k))), qPrintable(tip));
    QVERIFY2(tip.contains(expectedA) && tip.contains(expectedB), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("A − B")), qPrintable(tip));
    QCOMPARE(s.view.heatmapB()->cellToolTip(q, k), tip);
    QCOMPARE(s.view.difference()->cellToolTip(q, k), tip);
    // Above the diagonal the causal mask hides the key from both heads.
    QVERIFY(s.view.heatmapA()->cellToolTip(1, 6).contains(QStringLiteral("masked")));
}

void CompareViewTest::divergenceSaysItsUnitAndRange() {
    Setup s;
    const QString summary = s.view.findChild<QLabel*>(QStringLiteral("compareSummary"))->text();
    for (const QString& part : {QStringLiteral("natural log"), QStringLiteral("nats"),
                                QStringLiteral("ln 2"), QStringLiteral("0.693")}) {
        QVERIFY2(summary.contains(part), qPrintable(summary));
    }
    auto* rows = s.view.findChild<QTableWidget*>(QStringLiteral("compareRows"));
    // The column says its unit; its tool tip the range (the header is short for narrow windows).
    QVERIFY(rows->horizontalHeaderItem(1)->text().contains(QStringLiteral("nats")));
    QVERIFY(rows->horizontalHeaderItem(1)->toolTip().contains(QStringLiteral("ln 2")));
    // Every row's value lies in the stated range.
    for (int r = 0; r < rows->rowCount(); ++r) {
        const double js = rows->item(r, 1)->text().toDouble();
        QVERIFY(js >= 0.0 && js <= std::log(2.0) + 1e-4);
    }
}

void CompareViewTest::gridPicksHeadB() {
    Setup s;
    HeadGridModel model;
    model.setResult(s.result, {});
    HeadGridView grid(&s.session, &model);
    grid.resize(420, 320);
    grid.show();
    QVERIFY(QTest::qWaitForWindowExposed(&grid));
    QVERIFY(grid.toolTip().contains(QStringLiteral("Ctrl+click")));
    s.session.selectHead({0, 0});
    QTest::mouseClick(grid.viewport(), Qt::LeftButton, Qt::ControlModifier,
                      grid.headRect({1, 2}).center());
    QCOMPARE(s.session.compareHead(), (HeadId{1, 2}));
    QCOMPARE(s.session.selectedHead(), (HeadId{0, 0}));  // A stays
    QTest::mouseClick(grid.viewport(), Qt::MiddleButton, {}, grid.headRect({1, 0}).center());
    QCOMPARE(s.session.compareHead(), (HeadId{1, 0}));
    QCOMPARE(s.session.selectedHead(), (HeadId{0, 0}));
    // A plain click still selects A.
    QTest::mouseClick(grid.viewport(), Qt::LeftButton, {}, grid.headRect({0, 2}).center());
    QCOMPARE(s.session.selectedHead(), (HeadId{0, 2}));
    QCOMPARE(s.session.compareHead(), (HeadId{1, 0}));
}

void CompareViewTest::mapsGrowWithTheView() {
    Setup s;
    s.view.resize(700, 500);
    s.view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&s.view));
    const QSize small = s.view.heatmapA()->size();
    const QSize smallDiff = s.view.difference()->size();
    s.view.resize(1400, 1000);
    QTRY_VERIFY(s.view.heatmapA()->width() > small.width() * 3 / 2);
    QVERIFY(s.view.heatmapA()->height() > small.height() * 3 / 2);
    QVERIFY(s.view.heatmapB()->width() > small.width() * 3 / 2);
    QVERIFY(s.view.difference()->height() > smallDiff.height() * 3 / 2);
    // Each map gets a good share of the view, not a corner of it.
    QVERIFY(s.view.heatmapA()->width() * 3 > s.view.width());
}

QTEST_MAIN(CompareViewTest)
#include "compare_view_test.moc"
