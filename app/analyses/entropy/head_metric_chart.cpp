#include "analyses/entropy/head_metric_chart.h"

#include <algorithm>
#include <cmath>

#include <QCategoryAxis>
#include <QCursor>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>

#include "widgets/chart_axis.h"
#include "widgets/chart_palette.h"
#include "widgets/chart_setup.h"
#include "widgets/named.h"

namespace attnscope::app {

namespace {

// More layer labels than this would overlap at dock width; beyond it a band covers several
// layers (deep LLMs have 32-80 layers).
constexpr int kMaxLayerLabels = 24;

// Marker diameter in pixels: big enough to hit with the mouse for a 2x3 model, small enough
// that 12x12 = 144 points do not touch at ~900 px.
qreal markerSizeFor(int points) {
    if (points <= 24) {
        return 12;
    }
    return points <= 64 ? 9 : 7;
}

}  // namespace

HeadMetricChart::HeadMetricChart(const Labels& labels, QWidget* parent)
    : ThemedChartView(parent),
      m_labels(labels),
      m_points(named<QScatterSeries>("points")),
      m_selected(named<QScatterSeries>("selected")),
      m_reference(named<QLineSeries>("reference")),
      m_xAxis(new QCategoryAxis),
      m_yAxis(new QValueAxis) {
    setRubberBand(QChartView::NoRubberBand);
    QChart* c = chart();

    m_points->setName(tr("heads"));
    m_selected->setName(tr("selected head"));
    m_reference->setName(labels.referenceName);
    // Reference first so the points are drawn on top of it; the selected point goes last.
    c->addSeries(m_reference);
    c->addSeries(m_points);
    c->addSeries(m_selected);

    m_xAxis->setTitleText(tr("layer (heads left to right within each band)"));
    m_xAxis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionCenter);
    m_yAxis->setTitleText(labels.yAxis);
    m_yAxis->setLabelFormat("%.3g");
    addAxes(c, m_xAxis, m_yAxis, {m_reference, m_points, m_selected});

    connect(m_points, &QXYSeries::clicked, this, [this](const QPointF& p) {
        if (const auto head = headAt(p)) {
            emit headClicked(*head);
        }
    });
    connect(m_selected, &QXYSeries::clicked, this, [this](const QPointF& p) {
        if (const auto head = headAt(p)) {
            emit headClicked(*head);
        }
    });
    connect(m_points, &QXYSeries::hovered, this, &HeadMetricChart::showTooltip);
    connect(m_selected, &QXYSeries::hovered, this, &HeadMetricChart::showTooltip);
    applyTheme();
    clearValues();
}

void HeadMetricChart::setValues(const std::vector<float>& values, int nLayers, int nHeads,
                                std::optional<float> reference) {
    const bool shapeChanged = nLayers != m_nLayers || nHeads != m_nHeads;
    m_values = values;
    m_nLayers = nLayers;
    m_nHeads = nHeads;
    m_referenceValue = reference;
    const int count = std::min(static_cast<int>(values.size()), nLayers * nHeads);

    QList<QPointF> points;
    points.reserve(count);
    float top = reference.value_or(0.0f);
    for (int i = 0; i < count; ++i) {
        points.append(QPointF(i, values[static_cast<std::size_t>(i)]));
        top = std::max(top, values[static_cast<std::size_t>(i)]);
    }
    m_points->replace(points);
    m_points->setMarkerSize(markerSizeFor(count));
    m_selected->setMarkerSize(markerSizeFor(count) + 6);

    const double left = -0.5;
    const double right = std::max(0, count) - 0.5;
    if (reference) {
        m_reference->replace(QList<QPointF>{{left, *reference}, {right, *reference}});
        m_reference->setName(m_labels.referenceName +
                             QStringLiteral(" = %1").arg(*reference, 0, 'g', 3));
    } else {
        m_reference->clear();
    }
    m_reference->setVisible(reference.has_value());
    if (shapeChanged) {
        rebuildLayerAxis();
    }
    setValueRange(m_yAxis, top);
    updateSelected();
}

void HeadMetricChart::clearValues() {
    m_values.clear();
    m_nLayers = 0;
    m_nHeads = 0;
    m_referenceValue.reset();
    m_points->clear();
    m_selected->clear();
    m_reference->clear();
    m_reference->setVisible(false);
    rebuildLayerAxis();
    setValueRange(m_yAxis, 1.0);
    chart()->setTitle(m_labels.title);
}

void HeadMetricChart::setSelectedHead(HeadId head) {
    m_selectedHead = head;
    updateSelected();
}

void HeadMetricChart::updateSelected() {
    const HeadId h = m_selectedHead;
    const bool inRange = h.layer >= 0 && h.head >= 0 && h.layer < m_nLayers && h.head < m_nHeads;
    const auto index = static_cast<std::size_t>(xOf(h));
    if (!inRange || index >= m_values.size()) {
        m_selected->clear();
        chart()->setTitle(m_labels.title);
        return;
    }
    m_selected->replace(QList<QPointF>{{xOf(h), m_values[index]}});
    chart()->setTitle(tr("%1 — selected L%2 H%3: %4")
                          .arg(m_labels.title)
                          .arg(h.layer)
                          .arg(h.head)
                          .arg(valueText(m_values[index])));
}

void HeadMetricChart::rebuildLayerAxis() {
    for (const QString& label : m_xAxis->categoriesLabels()) {
        m_xAxis->remove(label);
    }
    m_xAxis->setStartValue(-0.5);
    if (m_nLayers <= 0 || m_nHeads <= 0) {
        m_xAxis->setRange(-0.5, 0.5);
        return;
    }
    const int perBand = (m_nLayers + kMaxLayerLabels - 1) / kMaxLayerLabels;
    for (int first = 0; first < m_nLayers; first += perBand) {
        const int last = std::min(m_nLayers, first + perBand) - 1;
        const QString label = first == last ? QStringLiteral("L%1").arg(first)
                                            : QStringLiteral("L%1–%2").arg(first).arg(last);
        m_xAxis->append(label, (last + 1) * m_nHeads - 0.5);
    }
    // A little beyond the outer bands so the first and last markers are not cut by the edge.
    m_xAxis->setRange(-0.9, m_nLayers * m_nHeads - 0.1);
}

std::optional<HeadId> HeadMetricChart::headAt(const QPointF& point) const {
    if (m_nHeads <= 0) {
        return std::nullopt;
    }
    const int index = static_cast<int>(std::lround(point.x()));
    if (index < 0 || index >= m_nLayers * m_nHeads) {
        return std::nullopt;
    }
    return HeadId{index / m_nHeads, index % m_nHeads};
}

QString HeadMetricChart::valueText(float value) const {
    const QString number = QString::number(value, 'g', 4);
    return m_labels.unit.isEmpty() ? number : number + ' ' + m_labels.unit;
}

void HeadMetricChart::showTooltip(const QPointF& point, bool state) {
    const auto head = headAt(point);
    if (!state || !head) {
        QToolTip::hideText();
        return;
    }
    const auto index = static_cast<std::size_t>(xOf(*head));
    QString text = tr("Layer %1, head %2\n%3: %4")
                       .arg(head->layer)
                       .arg(head->head)
                       .arg(m_labels.valueName)
                       .arg(valueText(index < m_values.size() ? m_values[index] : 0.0f));
    if (m_referenceValue) {
        text += '\n' + tr("%1: %2").arg(m_labels.referenceName, valueText(*m_referenceValue));
    }
    text += '\n' + tr("Click to select this head");
    QToolTip::showText(QCursor::pos(), text, this);
}

void HeadMetricChart::colourSeries(const QPalette& pal, const QColor& dataColor) {
    m_points->setColor(withAlpha(dataColor, 0.75f));
    m_points->setBorderColor(outlineColor(dataColor, pal));
    m_selected->setColor(selectionColor());
    m_selected->setPen(QPen(pal.color(QPalette::WindowText), 2));
    m_reference->setPen(QPen(referenceLineColor(pal), 2, Qt::DashLine));
}

}  // namespace attnscope::app
