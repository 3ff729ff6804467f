// The survey's head map (issue 18): every head a point at its classical-MDS coordinates (S12 of
// head_survey.h: heads close together attend alike over the corpus), coloured by layer (a
// sequential scale with a legend of layers) or by label (the head's strongest tag, Okabe–Ito
// colours, unlabelled heads grey). Hovering a point names the head and its labels; clicking it
// emits headClicked. Heads outside the label filter are drawn faint; the selected head is
// ringed. QtCharts; GUI thread only.
#pragma once

#include <optional>
#include <vector>

#include <QChartView>
#include <QColor>
#include <QString>

#include "attnscope/base/head_id.h"

class QGraphicsItemGroup;
class QGraphicsTextItem;
class QScatterSeries;
class QValueAxis;

namespace attnscope::app {

struct MdsPoint {
    HeadId head;
    double x = 0;
    double y = 0;
    QString tag;      // the strongest label's tag ("prev", "pos+1", "syn:det"); empty: none
    QString tooltip;  // rich text: the head's labels with evidence (labelTooltip)
};

enum class MdsColouring { Layer, Label };

class MdsScatter : public QChartView {
    Q_OBJECT

public:
    explicit MdsScatter(QWidget* parent = nullptr);

    // Replaces the map. Empty points: the chart shows `message` instead (why there is no map).
    void setPoints(std::vector<MdsPoint> points, int nLayers, const QString& message = {});

    void setColouring(MdsColouring colouring);

    MdsColouring colouring() const { return m_colouring; }

    // Heads the label filter keeps; the others are drawn faint. nullopt: no filter, every head
    // in full; an empty list: a filter no head passes, every head faint.
    void setHighlighted(std::optional<std::vector<HeadId>> heads);

    // The head open in the head view, ringed; an invalid HeadId (-1) rings none.
    void setSelected(HeadId head);

    const std::vector<MdsPoint>& points() const { return m_points; }

    QSize minimumSizeHint() const override { return {240, 200}; }

    // Tests: the series drawing the points under the current colouring (the ring excluded),
    // the ring series, and the message shown instead of an empty map.
    QList<QScatterSeries*> pointSeries() const;

    QScatterSeries* ringSeries() const { return m_ring; }

    // Tests: the faint series of the current colouring (heads outside the highlighted set).
    QList<QScatterSeries*> faintSeries() const;

    QString message() const;

signals:
    void headClicked(attnscope::HeadId head);

private:
    // One colour group: its heads in full colour and, drawn under every group's full points,
    // those outside the highlighted set in a faint copy of the colour. Both colourings keep
    // their groups, so switching or re-highlighting moves points between a group's two series
    // and rebuilds nothing.
    struct Group {
        QScatterSeries* series = nullptr;
        QScatterSeries* faint = nullptr;
        std::vector<int> members;  // indices into m_points
        std::vector<int> shown;    // series' points, in its order
        std::vector<int> dimmed;   // faint's points, in its order
        int key = -1;  // layer, or Okabe–Ito slot of a label family; -1: unlabelled heads
        QColor color;
    };

    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void clearGroups();
    void buildLayerGroups();
    void buildLabelGroups();
    Group makeGroup(const QString& name, std::vector<int> members, int key);
    QColor groupColor(bool byLayer, int key) const;
    void applyTheme();
    void applyColours();
    void applyVisibility();
    void updateLayerBar();
    void updateRing();
    void updateRanges();
    void placeMessage();
    void updateTitle();
    void placeLayerKey();
    void addSeriesInDrawingOrder();
    void markFaint();
    void splitHighlighted();
    int nearestPoint(const QScatterSeries* series, const QPointF& value) const;
    void onHovered(const QScatterSeries* series, const QPointF& value, bool state);
    void onClicked(const QScatterSeries* series, const QPointF& value);

    std::vector<MdsPoint> m_points;
    MdsColouring m_colouring = MdsColouring::Layer;
    int m_nLayers = 0;
    std::vector<Group> m_layerGroups;
    std::vector<Group> m_labelGroups;
    std::optional<std::vector<HeadId>> m_highlighted;  // kept across setPoints, like the selection
    std::vector<bool> m_faint;                         // per point: outside the highlighted set
    HeadId m_selected{-1, -1};
    QScatterSeries* m_ring = nullptr;
    QValueAxis* m_xAxis = nullptr;
    QValueAxis* m_yAxis = nullptr;
    QGraphicsItemGroup* m_layerKey = nullptr;  // the colour bar standing in for the legend
    QGraphicsTextItem* m_message = nullptr;
};

}  // namespace attnscope::app
