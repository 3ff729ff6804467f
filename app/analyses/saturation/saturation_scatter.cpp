#include "analyses/saturation/saturation_scatter.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QCursor>
#include <QEvent>
#include <QLegend>
#include <QLegendMarker>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>

#include "widgets/chart_axis.h"
#include "widgets/chart_palette.h"
#include "widgets/chart_setup.h"
#include "widgets/layer_colors.h"

namespace attnscope::app {

namespace {

// More layers than this and the legend would crowd the chart: the title names the scale.
constexpr int kMaxLayerLegend = 8;

bool finitePoint(const SaturationPoint& p) {
    return std::isfinite(p.x) && std::isfinite(p.y);
}

}  // namespace

SaturationScatter::SaturationScatter(QWidget* parent) : QChartView(parent) {
    setObjectName(QStringLiteral("saturationScatter"));
    QChart* c = setUpChartView(this, 4, Qt::AlignRight);
    m_x = new QValueAxis(c);
    m_y = new QValueAxis(c);
    m_y->setTitleText(tr("mean entropy (nats)"));
    m_x->setLabelFormat(QStringLiteral("%.3g"));
    m_y->setLabelFormat(QStringLiteral("%.2f"));
    addAxes(c, m_x, m_y);
    m_beforeSeries = new QScatterSeries(c);
    m_beforeSeries->setName(tr("model as is"));
    m_beforeSeries->setMarkerSize(11);
    m_ring = new QScatterSeries(c);
    m_ring->setMarkerSize(18);
    for (QScatterSeries* s : {m_beforeSeries, m_ring}) {
        c->addSeries(s);
        s->attachAxis(m_x);
        s->attachAxis(m_y);
        connectPoints(s);
    }
    c->legend()->markers(m_ring).front()->setVisible(false);
    applyColours();
}

void SaturationScatter::connectPoints(QScatterSeries* series) {
    connect(series, &QScatterSeries::hovered, this,
            [this, series](const QPointF& p, bool state) { onHovered(series, p, state); });
    connect(series, &QScatterSeries::clicked, this, [this, series](const QPointF& p) {
        if (const SaturationPoint* hit = pointAt(series, p)) {
            emit headClicked(hit->head);
        }
    });
}

void SaturationScatter::setPoints(std::vector<SaturationPoint> now,
                                  std::vector<SaturationPoint> before, int nLayers,
                                  const QString& xTitle) {
    m_now = std::move(now);
    m_beforePoints = std::move(before);
    m_nLayers = nLayers;
    m_x->setTitleText(xTitle);
    rebuild();
}

void SaturationScatter::setSelected(HeadId head) {
    m_selected = head;
    updateRing();
}

void SaturationScatter::rebuild() {
    QChart* c = chart();
    for (QScatterSeries* s : m_layers) {
        c->removeSeries(s);
        delete s;
    }
    m_layers.clear();
    for (int layer = 0; layer < m_nLayers; ++layer) {
        auto* s = new QScatterSeries(c);
        s->setName(tr("layer %1").arg(layer));
        s->setMarkerSize(9);
        m_layers.push_back(s);
    }
    double right = 0;
    double top = 0;
    for (const SaturationPoint& p : m_now) {
        if (finitePoint(p) && p.head.layer >= 0 && p.head.layer < m_nLayers) {
            m_layers[static_cast<std::size_t>(p.head.layer)]->append(p.x, p.y);
            right = std::max(right, p.x);
            top = std::max(top, p.y);
        }
    }
    m_beforeSeries->clear();
    for (const SaturationPoint& p : m_beforePoints) {
        if (finitePoint(p)) {
            m_beforeSeries->append(p.x, p.y);
            right = std::max(right, p.x);
            top = std::max(top, p.y);
        }
    }
    // Drawn above the baseline's rings, below the selection ring.
    c->removeSeries(m_ring);
    for (QScatterSeries* s : m_layers) {
        c->addSeries(s);
        s->attachAxis(m_x);
        s->attachAxis(m_y);
        connectPoints(s);
        c->legend()->markers(s).front()->setVisible(m_nLayers <= kMaxLayerLegend);
    }
    c->addSeries(m_ring);
    m_ring->attachAxis(m_x);
    m_ring->attachAxis(m_y);
    c->legend()->markers(m_ring).front()->setVisible(false);
    c->legend()->markers(m_beforeSeries).front()->setVisible(!m_beforePoints.empty());
    c->setTitle(m_nLayers > kMaxLayerLegend
                    ? tr("colour: layer 0 (dark) … layer %1 (light)").arg(m_nLayers - 1)
                    : QString());
    setValueRange(m_x, right);
    setValueRange(m_y, top);
    applyColours();
    updateRing();
}

void SaturationScatter::applyColours() {
    const bool dark = isDarkPalette(palette());
    for (std::size_t layer = 0; layer < m_layers.size(); ++layer) {
        const QColor color = layerColor(static_cast<int>(layer), m_nLayers, dark);
        m_layers[layer]->setColor(color);
        m_layers[layer]->setBorderColor(outlineColor(color, palette()));
    }
    m_beforeSeries->setBrush(Qt::NoBrush);
    m_beforeSeries->setPen(QPen(referenceLineColor(palette()), 1.5));
    m_ring->setBrush(Qt::NoBrush);
    m_ring->setPen(QPen(selectionColor(), 2.5));
}

void SaturationScatter::updateRing() {
    m_ring->clear();
    for (const SaturationPoint& p : m_now) {
        if (p.head == m_selected && finitePoint(p)) {
            m_ring->append(p.x, p.y);
        }
    }
}

void SaturationScatter::changeEvent(QEvent* event) {
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyColours();
    }
}

const SaturationPoint* SaturationScatter::pointAt(const QScatterSeries* series,
                                                  const QPointF& value) const {
    const bool baseline = series == m_beforeSeries;
    const int layer =
        static_cast<int>(std::find(m_layers.begin(), m_layers.end(), series) - m_layers.begin());
    const SaturationPoint* best = nullptr;
    double bestDistance = std::numeric_limits<double>::infinity();
    for (const SaturationPoint& p : baseline ? m_beforePoints : m_now) {
        const bool inSeries =
            baseline || (series == m_ring ? p.head == m_selected : p.head.layer == layer);
        const double d = std::hypot(p.x - value.x(), p.y - value.y());
        if (inSeries && finitePoint(p) && d < bestDistance) {
            bestDistance = d;
            best = &p;
        }
    }
    return best;
}

void SaturationScatter::onHovered(const QScatterSeries* series, const QPointF& value, bool state) {
    const SaturationPoint* p = state ? pointAt(series, value) : nullptr;
    if (p == nullptr) {
        QToolTip::hideText();
        return;
    }
    QString text = QStringLiteral("<b>") +
                   tr("head %1").arg(QString::fromStdString(p->head.toString())) +
                   QStringLiteral("</b>");
    if (series == m_beforeSeries) {
        text += QStringLiteral(" — ") + tr("model as is");
    }
    text += QStringLiteral("<br>") + p->tooltip;
    QToolTip::showText(QCursor::pos(), text, this);
}

}  // namespace attnscope::app
