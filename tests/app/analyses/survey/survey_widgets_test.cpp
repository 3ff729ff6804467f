// The survey's head map (issue 18): one series per layer or per label family holding every point,
// faint points outside the label filter, the selected head ringed, hover and click naming the
// head, the empty map's message. With ATTNSCOPE_SHOT_DIR set, also writes pictures of it there.
// The score histograms have their own test (score_histograms_test.cpp).
#include <algorithm>
#include <cmath>
#include <limits>

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

#include "analyses/survey/mds_scatter.h"
#include "plausible_survey.h"
#include "session/analysis_session.h"  // HeadId as a QVariant (the signal spy)
#include "widget_test.h"
#include "widgets/chart_palette.h"
#include "widgets/theme.h"

using attnscope::HeadId;
using attnscope::app::MdsColouring;
using attnscope::app::MdsPoint;
using attnscope::app::MdsScatter;
using namespace attnscope::test;

namespace {

QList<QPointF> allPoints(const QList<QScatterSeries*>& series) {
    QList<QPointF> out;
    for (const QScatterSeries* s : series) {
        out.append(s->points());
    }
    std::sort(out.begin(), out.end(), [](const QPointF& a, const QPointF& b) {
        return a.x() != b.x() ? a.x() < b.x() : a.y() < b.y();
    });
    return out;
}

// `map` shown at 600 x 450 with the plausible points; false when it was not exposed.
bool showPlausibleMap(MdsScatter& map) {
    if (!showExposed(map, 600, 450)) {
        return false;
    }
    map.setPoints(plausiblePoints(), kLayers);
    return true;
}

// Where a head's point is: its series (full or faint) and its index there.
std::pair<QScatterSeries*, int> locate(const MdsScatter& map, HeadId head) {
    const auto& pts = map.points();
    const auto it =
        std::find_if(pts.begin(), pts.end(), [&](const MdsPoint& p) { return p.head == head; });
    const QPointF target(it->x, it->y);
    for (QScatterSeries* s : map.pointSeries() + map.faintSeries()) {
        const auto k = s->points().indexOf(target);
        if (k >= 0) {
            return {s, static_cast<int>(k)};
        }
    }
    return {nullptr, -1};
}

}  // namespace

class SurveyWidgetsTest : public WidgetTest {
    Q_OBJECT

private slots:
    void seriesHoldEveryPoint();
    void colouringSwitchKeepsThePoints();
    void highlightedSetDimsTheOthers();
    void selectedHeadIsRinged();
    void clickingAPointEmitsItsHead();
    void hoverNamesTheHead();
    void unplacedHeadsAreLeftOff();
    void emptyMapShowsTheMessage();
    void fourHundredPointsKeepTheirPlaces();
    void screenshots();
};

void SurveyWidgetsTest::seriesHoldEveryPoint() {
    MdsScatter map;
    map.setPoints(plausiblePoints(), kLayers);
    QCOMPARE(map.pointSeries().size(), kLayers);
    for (int l = 0; l < kLayers; ++l) {
        QCOMPARE(map.pointSeries()[l]->count(), kHeads);
        QCOMPARE(map.pointSeries()[l]->name(), QStringLiteral("layer %1").arg(l));
        QVERIFY(map.pointSeries()[l]->isVisible());
    }
    // The viridis samples differ layer to layer.
    QVERIFY(map.pointSeries()[0]->color() != map.pointSeries()[kLayers - 1]->color());

    map.setColouring(MdsColouring::Label);
    const QList<QScatterSeries*> label = map.pointSeries();
    QStringList names;
    int total = 0;
    for (const QScatterSeries* s : label) {
        names << s->name();
        total += static_cast<int>(s->count());
        QVERIFY(s->isVisible());
    }
    // The unlabelled first (drawn under the rest), then the families in rule order with offsets
    // and relations folded into "pos" and "syn".
    QCOMPARE(names, (QStringList{"no label", "prev", "next", "self", "pos", "sink", "broad",
                                 "punct", "induct", "dup", "syn"}));
    QCOMPARE(total, kLayers * kHeads);
    QCOMPARE(label.front()->color(), QColor(0xa0, 0xa0, 0xa0));  // unlabelled heads are grey
    QCOMPARE(label[1]->color(), attnscope::app::okabeIto(0));
    // Past the seven Okabe–Ito colours a family repeats a colour with another marker shape.
    QCOMPARE(label[8]->color(), label[2]->color());
    QVERIFY(label[8]->markerShape() != label[2]->markerShape());
    QVERIFY(map.chart()->legend()->isVisible());
}

void SurveyWidgetsTest::colouringSwitchKeepsThePoints() {
    MdsScatter map;
    const std::vector<MdsPoint> input = plausiblePoints();
    map.setPoints(input, kLayers);
    const QList<QScatterSeries*> byLayer = map.pointSeries();
    const QList<QPointF> before = allPoints(byLayer);
    QCOMPARE(before.size(), static_cast<qsizetype>(input.size()));
    map.setColouring(MdsColouring::Label);
    QCOMPARE(allPoints(map.pointSeries()), before);
    for (const QScatterSeries* s : byLayer) {
        QVERIFY(!s->isVisible());  // hidden, not drawn twice
    }
    map.setColouring(MdsColouring::Layer);
    // The same series objects come back: switching rebuilds nothing.
    QCOMPARE(map.pointSeries(), byLayer);
    QCOMPARE(allPoints(map.pointSeries()), before);
}

void SurveyWidgetsTest::highlightedSetDimsTheOthers() {
    MdsScatter map;
    map.setPoints(plausiblePoints(), kLayers);
    const std::vector<HeadId> kept = {{0, 3}, {5, 5}, {11, 0}};
    for (const MdsColouring colouring : {MdsColouring::Layer, MdsColouring::Label}) {
        map.setColouring(colouring);
        map.setHighlighted(kept);
        const QList<QScatterSeries*> full = map.pointSeries();
        const QList<QScatterSeries*> faint = map.faintSeries();
        QCOMPARE(faint.size(), full.size());
        int faintCount = 0;
        for (const MdsPoint& p : map.points()) {
            const auto [series, k] = locate(map, p.head);
            QVERIFY(series != nullptr);
            const bool isKept = std::find(kept.begin(), kept.end(), p.head) != kept.end();
            QCOMPARE(full.contains(series), isKept);
            QCOMPARE(series->color().alphaF(), isKept ? 1.0f : 0.2f);
            faintCount += isKept ? 0 : 1;
        }
        QCOMPARE(faintCount, kLayers * kHeads - 3);
        for (qsizetype g = 0; g < full.size(); ++g) {
            // Same hue as the group's full points, only fainter; no legend entry of its own.
            QCOMPARE(faint[g]->color().rgb(), full[g]->color().rgb());
            QCOMPARE(faint[g]->name(), full[g]->name());
            QVERIFY(faint[g]->isVisible());
            for (QLegendMarker* m : map.chart()->legend()->markers(faint[g])) {
                QVERIFY(!m->isVisible());
            }
        }
        // Every faint series is drawn before (under) every full one.
        const QList<QAbstractSeries*> order = map.chart()->series();
        qsizetype lastFaint = -1;
        qsizetype firstFull = order.size();
        for (qsizetype i = 0; i < order.size(); ++i) {
            auto* s = static_cast<QScatterSeries*>(order[i]);
            if (s->isVisible() && s->count() > 0 && faint.contains(s)) {
                lastFaint = std::max(lastFaint, i);
            }
            if (s->isVisible() && s->count() > 0 && full.contains(s)) {
                firstFull = std::min(firstFull, i);
            }
        }
        QVERIFY(lastFaint >= 0 && lastFaint < firstFull);
    }
    // New points (another survey) keep the filter's highlighting.
    map.setPoints(plausiblePoints(), kLayers);
    int faintAfter = 0;
    for (const QScatterSeries* s : map.faintSeries()) {
        faintAfter += static_cast<int>(s->count());
    }
    QCOMPARE(faintAfter, kLayers * kHeads - 3);
    // A filter no head passes ("induct (0)") leaves every head faint; no filter, none.
    map.setHighlighted(std::vector<HeadId>{});
    QCOMPARE(allPoints(map.faintSeries()).size(), kLayers * kHeads);
    QCOMPARE(allPoints(map.pointSeries()).size(), 0);
    map.setHighlighted(std::nullopt);
    for (const QScatterSeries* s : map.faintSeries()) {
        QCOMPARE(s->count(), 0);
    }
    QCOMPARE(allPoints(map.pointSeries()).size(), kLayers * kHeads);
}

void SurveyWidgetsTest::selectedHeadIsRinged() {
    MdsScatter map;
    map.setPoints(plausiblePoints(), kLayers);
    QCOMPARE(map.ringSeries()->count(), 0);
    map.setSelected(HeadId{4, 7});
    const MdsPoint& p = map.points()[4 * kHeads + 7];
    QCOMPARE(map.ringSeries()->points(), (QList<QPointF>{{p.x, p.y}}));
    QVERIFY(map.ringSeries()->markerSize() > map.pointSeries()[0]->markerSize());
    QCOMPARE(map.ringSeries()->brush().style(), Qt::NoBrush);  // hollow: the point shows inside
    map.setColouring(MdsColouring::Label);                     // the ring stays
    QCOMPARE(map.ringSeries()->count(), 1);
    map.setSelected(HeadId{-1, -1});
    QCOMPARE(map.ringSeries()->count(), 0);
}

void SurveyWidgetsTest::clickingAPointEmitsItsHead() {
    MdsScatter map;
    QVERIFY(showPlausibleMap(map));
    QSignalSpy spy(&map, &MdsScatter::headClicked);
    QTRY_VERIFY(map.chart()->plotArea().width() > 200);

    // A real mouse click on head 7-2's marker.
    const HeadId target{7, 2};
    const auto [series, k] = locate(map, target);
    const QPointF value = series->at(k);
    const QPoint pos = map.mapFromScene(map.chart()->mapToPosition(value, series));
    QTest::mouseClick(map.viewport(), Qt::LeftButton, {}, pos);
    QTRY_COMPARE(spy.count(), 1);
    QCOMPARE(spy.first().first().value<HeadId>(), target);

    // The series' clicked signal, by label colouring, picks the nearest point of that series.
    map.setColouring(MdsColouring::Label);
    const auto [labelSeries, j] = locate(map, HeadId{2, 9});
    emit labelSeries->clicked(labelSeries->at(j) + QPointF(1e-4, -1e-4));
    QCOMPARE(spy.count(), 2);
    QCOMPARE(spy.at(1).first().value<HeadId>(), (HeadId{2, 9}));
}

void SurveyWidgetsTest::hoverNamesTheHead() {
    MdsScatter map;
    QVERIFY(showPlausibleMap(map));
    const HeadId target{3, 4};
    const MdsPoint& p = map.points()[3 * kHeads + 4];
    QVERIFY(!p.tooltip.isEmpty());
    const auto [series, k] = locate(map, target);
    emit series->hovered(series->at(k), true);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY2(QToolTip::text().contains(QStringLiteral("head 3-4")), qPrintable(QToolTip::text()));
    QVERIFY(QToolTip::text().contains(p.tooltip));
    emit series->hovered(series->at(k), false);
    QTRY_VERIFY(!QToolTip::isVisible());
    // The selected head's ring covers its point and names the same head.
    map.setSelected(target);
    emit map.ringSeries()->hovered(map.ringSeries()->at(0), true);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY2(QToolTip::text().contains(QStringLiteral("head 3-4")), qPrintable(QToolTip::text()));
}

void SurveyWidgetsTest::unplacedHeadsAreLeftOff() {
    std::vector<MdsPoint> points = plausiblePoints();
    points[5].x = kNaN;
    points[20].y = std::numeric_limits<double>::infinity();
    MdsScatter map;
    map.setPoints(points, kLayers);
    QCOMPARE(map.points().size(), points.size());  // kept, for the caller
    for (const MdsColouring colouring : {MdsColouring::Layer, MdsColouring::Label}) {
        map.setColouring(colouring);
        QCOMPARE(allPoints(map.pointSeries()).size(), kLayers * kHeads - 2);
    }
    for (QAbstractAxis* axis : map.chart()->axes()) {
        const auto* value = qobject_cast<QValueAxis*>(axis);
        QVERIFY(std::isfinite(value->min()) && std::isfinite(value->max()));
        QVERIFY(value->max() - value->min() < 2);
    }
    map.setSelected(points[5].head);
    QCOMPARE(map.ringSeries()->count(), 0);
}

void SurveyWidgetsTest::emptyMapShowsTheMessage() {
    MdsScatter map;
    QVERIFY(showExposed(map, 500, 400));
    map.setPoints(plausiblePoints(), kLayers);
    map.setSelected(HeadId{0, 0});
    const QString why = QStringLiteral("Run the survey to place the heads.");
    map.setPoints({}, kLayers, why);
    QCOMPARE(map.message(), why);
    QVERIFY(map.pointSeries().isEmpty());
    QCOMPARE(map.ringSeries()->count(), 0);
    QCOMPARE(map.chart()->series().size(), 1);  // only the (empty) ring is left
    for (QAbstractAxis* axis : map.chart()->axes()) {
        QVERIFY(!axis->isVisible());
    }
    QVERIFY(!map.chart()->legend()->isVisible());
    // Centred in the chart.
    QGraphicsTextItem* text = nullptr;
    for (QGraphicsItem* item : map.chart()->childItems()) {
        auto* t = dynamic_cast<QGraphicsTextItem*>(item);
        if (t && t->objectName() == "emptyMessage") {
            text = t;
        }
    }
    QVERIFY(text != nullptr);
    const QPointF centre = text->mapToScene(text->boundingRect().center());
    QVERIFY(std::abs(centre.x() - map.chart()->geometry().center().x()) < 2);
    QVERIFY(std::abs(centre.y() - map.chart()->geometry().center().y()) < 2);
    // Points again: the message goes, the axes come back.
    map.setPoints(plausiblePoints(), kLayers);
    QVERIFY(map.message().isEmpty());
    QVERIFY(map.chart()->axes(Qt::Horizontal).front()->isVisible());
}

// 400 heads (a 24 × 16 model and more): re-highlighting and recolouring move points between a
// group's full and faint series and switch visibility, never losing one.
void SurveyWidgetsTest::fourHundredPointsKeepTheirPlaces() {
    std::vector<MdsPoint> points;
    for (int i = 0; i < 400; ++i) {
        MdsPoint p;
        p.head = HeadId{i / 16, i % 16};
        p.x = std::cos(2.399 * i) * i;
        p.y = std::sin(2.399 * i) * i;
        p.tag = i % 3 == 0   ? QStringLiteral("prev")
                : i % 3 == 1 ? QStringLiteral("pos+1")
                             : QString();
        points.push_back(p);
    }
    MdsScatter map;
    QVERIFY(showExposed(map, 600, 450));
    map.setPoints(points, 25);
    map.grab();
    std::vector<HeadId> half;
    for (int i = 0; i < 400; i += 2) {
        half.push_back(points[static_cast<std::size_t>(i)].head);
    }
    // Speed is the benchmarks' business; here every change must keep all 400 points placed,
    // the kept half in full and the rest faint.
    for (int round = 0; round < 5; ++round) {
        const bool filtering = round % 2 == 0;
        map.setHighlighted(filtering ? std::optional(half) : std::nullopt);
        map.setColouring(filtering ? MdsColouring::Label : MdsColouring::Layer);
        map.grab();
        int full = 0;
        int faint = 0;
        for (QScatterSeries* s : map.pointSeries()) {
            full += s->count();
        }
        for (QScatterSeries* s : map.faintSeries()) {
            faint += s->count();
        }
        QCOMPARE(full + faint, 400);
        QCOMPARE(faint, filtering ? 200 : 0);
    }
}

// Not a check: pictures for people (ATTNSCOPE_SHOT_DIR=<folder>).
void SurveyWidgetsTest::screenshots() {
    const QString dir = shotDirOrSkip();
    if (dir.isEmpty()) {
        return;
    }
    MdsScatter map;
    QVERIFY(showPlausibleMap(map));
    map.setSelected(HeadId{5, 3});
    QVERIFY(saveShot(map, dir + "/mds_layers.png"));
    map.setColouring(MdsColouring::Label);
    QVERIFY(saveShot(map, dir + "/mds_labels.png"));
    std::vector<HeadId> prev;
    for (const MdsPoint& p : map.points()) {
        if (p.tag == "prev" || p.tag == "syn:det") {
            prev.push_back(p.head);
        }
    }
    map.setHighlighted(prev);
    QVERIFY(saveShot(map, dir + "/mds_highlighted.png"));
    map.setPalette(attnscope::app::darkPalette());
    QVERIFY(saveShot(map, dir + "/mds_highlighted_dark.png"));
    map.setColouring(MdsColouring::Layer);
    QVERIFY(saveShot(map, dir + "/mds_layers_dark.png"));
    map.setPoints({}, kLayers,
                  "No head map yet: run the survey (Survey ▸ Run) to place the heads.");
    QVERIFY(saveShot(map, dir + "/mds_empty.png"));
}

QTEST_MAIN(SurveyWidgetsTest)
#include "survey_widgets_test.moc"
