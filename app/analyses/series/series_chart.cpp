#include "analyses/series/series_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QCursor>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QToolTip>
#include <QValueAxis>

#include "widgets/chart_axis.h"
#include "widgets/chart_palette.h"
#include "widgets/chart_setup.h"
#include "widgets/layer_colors.h"

namespace attnscope::app {

SeriesChart::SeriesChart(QWidget* parent) : QChartView(parent) {
    setObjectName(QStringLiteral("seriesChart"));
    QChart* c = setUpChartView(this, 4, Qt::AlignTop);
    c->legend()->hide();
    m_x = new QValueAxis(c);
    m_y = new QValueAxis(c);
    m_x->setLabelFormat(QStringLiteral("%.6g"));
    m_y->setLabelFormat(QStringLiteral("%.3g"));
    addAxes(c, m_x, m_y);
    m_marker = new QLineSeries(c);
    m_selectedLine = new QLineSeries(c);
    m_selectedLine->setPointsVisible(true);
    for (QLineSeries* s : {m_marker, m_selectedLine}) {
        c->addSeries(s);
        s->attachAxis(m_x);
        s->attachAxis(m_y);
    }
    connect(m_selectedLine, &QLineSeries::hovered, this,
            [this](const QPointF& p, bool state) { onHovered(m_selected, p, state); });
    connect(m_selectedLine, &QLineSeries::clicked, this,
            [this](const QPointF& p) { emit pointClicked(m_selected, checkpointAt(p.x())); });
}

void SeriesChart::setData(Data next) {
    m_data = std::move(next);
    rebuild();
}

void SeriesChart::clearData() {
    m_data = {};
    rebuild();
}

void SeriesChart::setSelected(HeadId head) {
    m_selected = head;
    updateSelected();
}

void SeriesChart::setCurrent(int checkpoint) {
    m_current = checkpoint;
    updateMarker();
}

void SeriesChart::rebuild() {
    QChart* c = chart();
    for (QLineSeries* s : m_lines) {
        c->removeSeries(s);
        delete s;
    }
    m_lines.clear();
    const bool dark = isDarkPalette(palette());
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    c->removeSeries(m_marker);
    c->removeSeries(m_selectedLine);
    for (std::size_t i = 0; i < m_data.values.size(); ++i) {
        const HeadId head{static_cast<int>(i) / std::max(m_data.nHeads, 1),
                          static_cast<int>(i) % std::max(m_data.nHeads, 1)};
        auto* line = new QLineSeries(c);
        for (std::size_t k = 0; k < m_data.x.size(); ++k) {
            if (!std::isfinite(m_data.values[i][k])) {
                continue;  // no value (the induction probe of a bidirectional checkpoint)
            }
            line->append(m_data.x[k], m_data.values[i][k]);
            lo = std::min(lo, m_data.values[i][k]);
            hi = std::max(hi, m_data.values[i][k]);
        }
        line->setPen(QPen(withAlpha(layerColor(head.layer, m_data.nLayers, dark), 0.55f), 1.2));
        c->addSeries(line);
        line->attachAxis(m_x);
        line->attachAxis(m_y);
        connect(line, &QLineSeries::hovered, this,
                [this, head](const QPointF& p, bool state) { onHovered(head, p, state); });
        connect(line, &QLineSeries::clicked, this,
                [this, head](const QPointF& p) { emit pointClicked(head, checkpointAt(p.x())); });
        m_lines.push_back(line);
    }
    for (QLineSeries* s : {m_marker, m_selectedLine}) {
        c->addSeries(s);  // over the heads' lines
        s->attachAxis(m_x);
        s->attachAxis(m_y);
    }
    m_marker->setPen(QPen(referenceLineColor(palette()), 1.0, Qt::DashLine));
    m_selectedLine->setPen(QPen(selectionColor(), 3.0));
    m_selectedLine->setColor(selectionColor());
    const double left = m_data.x.empty() ? 0.0 : m_data.x.front();
    const double right = m_data.x.empty() ? 1.0 : m_data.x.back();
    const double pad = right > left ? 0.03 * (right - left) : 0.5;
    // Round steps from 0 (1000, 2000, …), not ticks wherever the padded range ends.
    m_x->setTickType(QValueAxis::TicksDynamic);
    m_x->setTickAnchor(0.0);
    m_x->setTickInterval(niceTickInterval(std::max(right - left, 1.0)));
    m_x->setRange(left - pad, right + pad);
    m_x->setTitleText(m_data.xTitle);
    m_y->setTitleText(m_data.yTitle);
    if (std::isfinite(lo) && lo >= 0.0) {
        setValueRange(m_y, hi);
    } else {
        m_y->setRange(std::isfinite(lo) ? lo : 0.0, std::isfinite(hi) && hi > lo ? hi : 1.0);
    }
    updateSelected();
    updateMarker();
}

void SeriesChart::updateSelected() {
    m_selectedLine->clear();
    const auto i = static_cast<std::size_t>(headIndex(m_selected, std::max(m_data.nHeads, 1)));
    if (m_selected.layer < 0 || i >= m_data.values.size()) {
        return;
    }
    for (std::size_t k = 0; k < m_data.x.size(); ++k) {
        if (std::isfinite(m_data.values[i][k])) {
            m_selectedLine->append(m_data.x[k], m_data.values[i][k]);
        }
    }
}

void SeriesChart::updateMarker() {
    m_marker->clear();
    if (m_current < 0 || static_cast<std::size_t>(m_current) >= m_data.x.size()) {
        return;
    }
    const double x = m_data.x[static_cast<std::size_t>(m_current)];
    m_marker->append(x, m_y->min());
    m_marker->append(x, m_y->max());
}

int SeriesChart::checkpointAt(double x) const {
    int best = -1;
    double bestDistance = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < m_data.x.size(); ++k) {
        const double d = std::abs(m_data.x[k] - x);
        if (d < bestDistance) {
            bestDistance = d;
            best = static_cast<int>(k);
        }
    }
    return best;
}

void SeriesChart::onHovered(HeadId head, const QPointF& p, bool state) {
    const int k = state ? checkpointAt(p.x()) : -1;
    const auto i = static_cast<std::size_t>(headIndex(head, std::max(m_data.nHeads, 1)));
    if (k < 0 || i >= m_data.values.size()) {
        QToolTip::hideText();
        return;
    }
    QToolTip::showText(QCursor::pos(),
                       tr("<b>head %1</b> at %2<br>%3: %4<br>Click to open it there")
                           .arg(QString::fromStdString(head.toString()),
                                m_data.labels[static_cast<std::size_t>(k)], m_data.yTitle)
                           .arg(m_data.values[i][static_cast<std::size_t>(k)], 0, 'g', 4),
                       this);
}

}  // namespace attnscope::app
