// The saturation lab's chart (issue 33): every head a point at (largest |logit|, mean
// entropy), coloured by layer, so saturated heads — large logits, entropy near 0 — stand out in
// the lower right. While a what-if is on, the model as it is shows as grey rings beneath, so a
// head's move under the what-if reads as ring → dot. Hovering a point names the head and its
// numbers; clicking it emits headClicked. The selected head is ringed. QtCharts; GUI thread.
#pragma once

#include <vector>

#include <QChartView>
#include <QString>

#include "attnscope/base/head_id.h"

class QScatterSeries;
class QValueAxis;

namespace attnscope::app {

struct SaturationPoint {
    HeadId head;
    double x = 0;  // largest |logit| at the chosen stage
    double y = 0;  // mean entropy, nats
    QString tooltip;
};

class SaturationScatter : public QChartView {
    Q_OBJECT

public:
    explicit SaturationScatter(QWidget* parent = nullptr);

    // Replaces the points: `now` as shown (coloured by layer), `before` the model as it is
    // (empty without a what-if). `xTitle` names the stage of the x axis.
    void setPoints(std::vector<SaturationPoint> now, std::vector<SaturationPoint> before,
                   int nLayers, const QString& xTitle);

    // The head open in the head view, ringed; HeadId{-1, -1} rings none.
    void setSelected(HeadId head);

    QSize minimumSizeHint() const override { return {260, 200}; }

    // Tests: the layers' series (in layer order), the baseline's, the ring.
    const std::vector<QScatterSeries*>& layerSeries() const { return m_layers; }

    QScatterSeries* baselineSeries() const { return m_beforeSeries; }

    QScatterSeries* ringSeries() const { return m_ring; }

    const std::vector<SaturationPoint>& points() const { return m_now; }

signals:
    void headClicked(attnscope::HeadId head);

private:
    void changeEvent(QEvent* event) override;
    void rebuild();
    void applyColours();
    void updateRing();
    // Hover and click of `series`' points.
    void connectPoints(QScatterSeries* series);
    // The point of `series` nearest `value`: a layer's, the baseline's or the ring's.
    const SaturationPoint* pointAt(const QScatterSeries* series, const QPointF& value) const;
    void onHovered(const QScatterSeries* series, const QPointF& value, bool state);

    std::vector<SaturationPoint> m_now;
    std::vector<SaturationPoint> m_beforePoints;
    int m_nLayers = 0;
    HeadId m_selected{-1, -1};
    std::vector<QScatterSeries*> m_layers;
    QScatterSeries* m_beforeSeries = nullptr;
    QScatterSeries* m_ring = nullptr;
    QValueAxis* m_x = nullptr;
    QValueAxis* m_y = nullptr;
};

}  // namespace attnscope::app
