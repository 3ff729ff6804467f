// The survey's score histograms (issue 18): bins (1.0 in the last bin, NaN left out and counted),
// a score outside [0, 1], the selected head's bin accented, the bar tool tips, the grid's columns,
// PNG/SVG figures and errors that name the path. With ATTNSCOPE_SHOT_DIR set, also writes
// pictures of the grid there.
#include "analyses/survey/score_histograms.h"

#include <algorithm>

#include <QBarSet>
#include <QCategoryAxis>
#include <QChartView>
#include <QFile>
#include <QGraphicsTextItem>
#include <QImage>
#include <QLegend>
#include <QLegendMarker>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <QValueAxis>

#include "plausible_survey.h"
#include "session/analysis_session.h"  // HeadId as a QVariant (the signal spy)
#include "widget_test.h"
#include "widgets/chart_palette.h"
#include "widgets/theme.h"

using attnscope::app::ScoreColumn;
using attnscope::app::ScoreHistograms;
using namespace attnscope::test;

class ScoreHistogramsTest : public WidgetTest {
    Q_OBJECT

private slots:
    void binCountsOfKnownValues();
    void binsFollowAScoreOutsideZeroOne();
    void selectedHeadsBinIsAccented();
    void hoverNamesTheBin();
    void gridColumnsFollowTheWidth();
    void saveFigureWritesPngAndSvg();
    void saveFigureErrorsNameThePath();
    void screenshots();
};

void ScoreHistogramsTest::binCountsOfKnownValues() {
    ScoreHistograms h;
    h.setScores({{"prev", "previous token", {0.0, 0.05, 0.1, 0.5, 0.99, 1.0, kNaN, kNaN}}}, 10);
    QCOMPARE(h.chartCount(), 1);
    // 0.1 opens bin 1; 1.0, the top edge, belongs to the last bin; the NaNs are in none.
    QCOMPARE(h.binCounts(0), (std::vector<int>{2, 1, 0, 0, 0, 1, 0, 0, 0, 2}));
    QCOMPARE(h.chartView(0)->chart()->title(), QStringLiteral("previous token (2 undefined)"));
    QCOMPARE(h.barSet(0)->count(), 10);
    QCOMPARE(h.barSet(0)->at(9), 2.0);
    // The count axis ends on a labelled tick at or above the tallest bar: 13 heads, ticks of 5.
    h.setScores({{"prev", "previous token", std::vector<double>(13, 0.05)}}, 10);
    auto* heads = qobject_cast<QValueAxis*>(h.chartView(0)->chart()->axes(Qt::Vertical).front());
    QCOMPARE(heads->titleText(), QStringLiteral("heads"));
    QCOMPARE(heads->tickInterval(), 5.0);
    QCOMPARE(heads->max(), 15.0);

    h.setScores({{"self", "self", {0.25, 0.75}}}, 2);
    QCOMPARE(h.binCounts(0), (std::vector<int>{1, 1}));
    QCOMPARE(h.chartView(0)->chart()->title(), QStringLiteral("self"));
    QVERIFY(h.binCounts(1).empty());  // out of range: no chart
    h.setScores({});
    QCOMPARE(h.chartCount(), 0);
}

void ScoreHistogramsTest::binsFollowAScoreOutsideZeroOne() {
    ScoreHistograms h;
    // -1..3 in four bins of width 1: a score such as a signed margin is binned over its range.
    h.setScores({{"margin", "margin", {-1.0, 0.0, 3.0, kNaN}},
                 {"flat", "all equal", {2.0, 2.0}},
                 {"none", "all undefined", {kNaN, kNaN, kNaN}}},
                4);
    QCOMPARE(h.binCounts(0), (std::vector<int>{1, 1, 0, 1}));
    auto* x = qobject_cast<QCategoryAxis*>(h.chartView(0)->chart()->axes(Qt::Horizontal).front());
    QCOMPARE(x->categoriesLabels(), (QStringList{"-1", "1", "3"}));  // the range's ends and middle
    QCOMPARE(h.binCounts(1), (std::vector<int>{0, 0, 2, 0}));
    QCOMPARE(h.binCounts(2), (std::vector<int>{0, 0, 0, 0}));
    QCOMPARE(h.chartView(2)->chart()->title(), QStringLiteral("all undefined (3 undefined)"));
}

void ScoreHistogramsTest::selectedHeadsBinIsAccented() {
    ScoreHistograms h;
    h.setScores({{"prev", "previous token", {0.05, 0.95, 0.55, kNaN}},
                 {"next", "next token", {0.15, 0.25, 1.0, 0.45}}},
                10);
    h.setSelectedHead(2);
    QCOMPARE(h.selectedBin(0), 5);
    QCOMPARE(h.selectedBin(1), 9);
    for (int c = 0; c < 2; ++c) {
        QCOMPARE(h.barSet(c)->selectedBars(), (QList<int>{h.selectedBin(c)}));
        QCOMPARE(h.barSet(c)->selectedColor(), attnscope::app::selectionColor());
        QVERIFY(h.barSet(c)->selectedColor() != h.barSet(c)->color());
    }
    h.setSelectedHead(3);  // undefined for prev: no bin of that chart is accented
    QVERIFY(h.barSet(0)->selectedBars().isEmpty());
    QCOMPARE(h.barSet(1)->selectedBars(), (QList<int>{4}));
    // New scores keep the selection.
    h.setScores({{"self", "self", {0.0, 0.0, 0.0, 0.3}}}, 10);
    QCOMPARE(h.barSet(0)->selectedBars(), (QList<int>{3}));
    h.setSelectedHead(-1);
    QVERIFY(h.barSet(0)->selectedBars().isEmpty());
}

void ScoreHistogramsTest::hoverNamesTheBin() {
    ScoreHistograms h;
    QVERIFY(showExposed(h, 600, 400));
    h.setScores({{"prev", "previous token", {0.05, 0.12, 0.15, 1.0}}}, 10);
    h.setSelectedHead(1);
    emit h.barSet(0)->hovered(true, 1);
    QTRY_VERIFY(QToolTip::isVisible());
    QCOMPARE(QToolTip::text(),
             QStringLiteral("previous token\n[0.1, 0.2): 2 heads\nthe selected head: 0.12"));
    emit h.barSet(0)->hovered(true, 9);  // the last bin is closed: it holds 1.0
    QTRY_COMPARE(QToolTip::text(), QStringLiteral("previous token\n[0.9, 1]: 1 head"));
    emit h.barSet(0)->hovered(false, 9);
    QTRY_VERIFY(!QToolTip::isVisible());
}

void ScoreHistogramsTest::gridColumnsFollowTheWidth() {
    ScoreHistograms h;
    h.setScores(plausibleScores());
    QVERIFY(showExposed(h, 600, 400));
    QCOMPARE(h.columnCount(), 3);
    // Eight charts fit 600 × 400 in three rows, none below its minimum, none outside.
    for (int i = 0; i < h.chartCount(); ++i) {
        QVERIFY(h.chartView(i)->width() >= 180);
        QVERIFY(h.chartView(i)->height() >= 120);
        QVERIFY(h.rect().contains(h.chartView(i)->geometry()));
    }
    h.resize(800, 400);
    QTRY_COMPARE(h.columnCount(), 4);
    // Narrowing is not blocked by the four columns' minimum width.
    h.resize(320, 600);
    QTRY_COMPARE(h.columnCount(), 2);
    QCOMPARE(h.width(), 320);
    QTRY_VERIFY(h.rect().contains(h.chartView(h.chartCount() - 1)->geometry()));
}

void ScoreHistogramsTest::saveFigureWritesPngAndSvg() {
    QTemporaryDir dir;
    ScoreHistograms h;
    h.setScores(plausibleScores());
    h.setSelectedHead(10);
    // Never shown: the export still lays the charts out at a useful size.
    const QString png = dir.filePath("hist.png");
    QString error;
    QVERIFY2(h.saveFigure(png, &error), qPrintable(error));
    const QImage image(png);
    QVERIFY(!image.isNull());
    // Three columns of readable charts, each laid out in its own cell.
    QCOMPARE(h.columnCount(), 3);
    QVERIFY2(image.width() >= 3 * 180 && image.height() >= 3 * 120,
             qPrintable(QStringLiteral("%1 x %2").arg(image.width()).arg(image.height())));
    for (int i = 0; i < h.chartCount(); ++i) {
        QVERIFY(h.chartView(i)->width() >= 180 && h.chartView(i)->height() >= 120);
    }
    QCOMPARE(h.chartView(4)->geometry().topLeft(),
             QPoint(h.chartView(1)->x(), h.chartView(3)->y()));
    const QString svg = dir.filePath("hist.svg");
    QVERIFY2(h.saveFigure(svg, &error), qPrintable(error));
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.contains("entropy norm"));  // a chart title, written as text
}

void ScoreHistogramsTest::saveFigureErrorsNameThePath() {
    QTemporaryDir dir;
    ScoreHistograms h;
    QString error;
    const QString early = dir.filePath("early.png");
    QVERIFY(!h.saveFigure(early, &error));  // nothing to save yet
    QVERIFY(error.startsWith(early));
    h.setScores(plausibleScores());
    const QString missing = dir.filePath("no/such/folder/hist.png");
    QVERIFY(!h.saveFigure(missing, &error));
    QVERIFY2(error.startsWith(missing + ": "), qPrintable(error));
    const QString odd = dir.filePath("hist.xyz");
    QVERIFY(!h.saveFigure(odd, &error));
    QVERIFY2(error.startsWith(odd) && error.contains("xyz"), qPrintable(error));
    QVERIFY(!QFile::exists(odd));
}

// Not a check: pictures for people (ATTNSCOPE_SHOT_DIR=<folder>).
void ScoreHistogramsTest::screenshots() {
    const QString dir = shotDirOrSkip();
    if (dir.isEmpty()) {
        return;
    }
    ScoreHistograms h;
    QVERIFY(showExposed(h, 600, 450));
    h.setScores(plausibleScores());
    h.setSelectedHead(10);
    QVERIFY(saveShot(h, dir + "/histograms.png"));
    h.setPalette(attnscope::app::darkPalette());
    QVERIFY(saveShot(h, dir + "/histograms_dark.png"));
    QVERIFY(h.saveFigure(dir + "/histograms.svg"));
    // The export of a grid never shown (the Survey tab not opened yet).
    ScoreHistograms hidden;
    hidden.setScores(plausibleScores());
    QVERIFY(hidden.saveFigure(dir + "/histograms_never_shown.png"));
    QVERIFY(hidden.saveFigure(dir + "/histograms_never_shown.svg"));
}

QTEST_MAIN(ScoreHistogramsTest)
#include "score_histograms_test.moc"
