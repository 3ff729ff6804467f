// One number per head across the whole model, as a scatter: x is the head in layer-major order
// with one axis band per layer ("L0", "L1", ...), y the value. An optional horizontal reference
// line (e.g. the uniform maximum entropy) and a highlighted selected head. The entropy charts
// use it for mean entropy and for max |logit| (methods.md §8.3).
//
// Clicking a point emits headClicked; hovering shows layer, head and value. The series and axes
// are created once and refilled with QXYSeries::replace, so a new result never rebuilds the
// chart. GUI thread only.
#pragma once

#include <optional>
#include <vector>

#include <QString>

#include "attnscope/base/head_id.h"
#include "widgets/themed_chart_view.h"

class QCategoryAxis;
class QLineSeries;
class QScatterSeries;
class QValueAxis;

namespace attnscope::app {

class HeadMetricChart : public ThemedChartView {
    Q_OBJECT

public:
    struct Labels {
        QString title;          // chart title, e.g. "Mean attention entropy per head"
        QString yAxis;          // with unit, e.g. "entropy (nats)"
        QString valueName;      // for tooltips, e.g. "mean entropy"
        QString unit;           // for tooltips, e.g. "nats"; may be empty
        QString referenceName;  // legend entry of the reference line
    };

    explicit HeadMetricChart(const Labels& labels, QWidget* parent = nullptr);

    // values: [nLayers * nHeads], layer-major (HeadStats order). reference: y of the reference
    // line; nullopt hides it.
    void setValues(const std::vector<float>& values, int nLayers, int nHeads,
                   std::optional<float> reference);
    void setSelectedHead(HeadId head);
    void clearValues();

    QScatterSeries* pointSeries() const { return m_points; }

    QScatterSeries* selectedSeries() const { return m_selected; }

    QLineSeries* referenceSeries() const { return m_reference; }

    // The x coordinate of a head's point (layer-major index).
    double xOf(HeadId head) const { return static_cast<double>(headIndex(head, m_nHeads)); }

signals:
    void headClicked(attnscope::HeadId head);

protected:
    void colourSeries(const QPalette& pal, const QColor& dataColor) override;

private:
    void rebuildLayerAxis();
    void updateSelected();
    void showTooltip(const QPointF& point, bool state);
    std::optional<HeadId> headAt(const QPointF& point) const;
    QString valueText(float value) const;

    Labels m_labels;
    QScatterSeries* m_points;
    QScatterSeries* m_selected;
    QLineSeries* m_reference;
    QCategoryAxis* m_xAxis;
    QValueAxis* m_yAxis;
    std::vector<float> m_values;  // [nLayers * nHeads]
    std::optional<float> m_referenceValue;
    int m_nLayers = 0;
    int m_nHeads = 0;
    HeadId m_selectedHead;
};

}  // namespace attnscope::app
