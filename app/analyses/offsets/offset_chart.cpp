#include "analyses/offsets/offset_chart.h"

#include <algorithm>
#include <cmath>

#include <QAreaSeries>
#include <QEvent>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMouseEvent>
#include <QToolTip>
#include <QValueAxis>

#include "widgets/chart_axis.h"
#include "widgets/chart_palette.h"
#include "widgets/chart_setup.h"
#include "widgets/named.h"

namespace attnscope::app {

namespace {

// The four corners of a bar from y = 0 up to `height` and back, so consecutive bars of one
// series are joined along the baseline and the fill between them has no area.
void appendBar(QList<QPointF>& points, int offset, double height) {
    const double left = offset - OffsetChart::kHalfBar;
    const double right = offset + OffsetChart::kHalfBar;
    points.append(
        {QPointF(left, 0), QPointF(left, height), QPointF(right, height), QPointF(right, 0)});
}

// Pixels between two tick labels: room for "−100" and a gap.
constexpr double kMinTickSpacing = 36;

// The smallest whole number of offsets (1, 2, 5, 10, 20, ...) whose ticks are at least
// kMinTickSpacing apart, so short sentences get a label on every bar (−1 and +1 readable).
double offsetTickInterval(double pixelsPerOffset) {
    for (double magnitude = 1;; magnitude *= 10) {
        for (const double step : {1.0, 2.0, 5.0}) {
            if (step * magnitude * pixelsPerOffset >= kMinTickSpacing || magnitude > 1e6) {
                return step * magnitude;
            }
        }
    }
}

}  // namespace

QString offsetText(int offset) {
    if (offset < 0) {
        return QChar(0x2212) + QString::number(-offset);
    }
    return offset > 0 ? '+' + QString::number(offset) : QStringLiteral("0");
}

QString offsetMeaning(int offset) {
    switch (offset) {
        case 0:
            return OffsetChart::tr("itself");
        case -1:
            return OffsetChart::tr("the previous token");
        case 1:
            return OffsetChart::tr("the next token");
        default:
            return offset < 0 ? OffsetChart::tr("%1 tokens back").arg(-offset)
                              : OffsetChart::tr("%1 tokens ahead").arg(offset);
    }
}

OffsetChart::OffsetChart(QWidget* parent)
    : ThemedChartView(parent),
      m_barsUpper(new QLineSeries(this)),
      m_barsLower(new QLineSeries(this)),
      m_bestUpper(new QLineSeries(this)),
      m_bestLower(new QLineSeries(this)),
      m_zero(named<QLineSeries>("zeroLine")),
      m_xAxis(new QValueAxis),
      m_yAxis(new QValueAxis) {
    m_bars = named<QAreaSeries>("bars", m_barsUpper, m_barsLower);
    m_best = named<QAreaSeries>("bestBar", m_bestUpper, m_bestLower);
    // Drag across the plot to zoom into a range of offsets (a 512-token sentence has 1,023),
    // right-click to zoom out, double-click to see them all again.
    setRubberBand(QChartView::HorizontalRubberBand);
    setMouseTracking(true);
    QChart* c = chart();
    m_bars->setName(tr("mean attention over the queries"));
    m_zero->setName(tr("offset 0: the query itself"));
    // The zero line first, so the bars are drawn over it; the highlighted bar last.
    c->addSeries(m_zero);
    c->addSeries(m_bars);
    c->addSeries(m_best);
    m_xAxis->setTitleText(
        tr("offset = key position − query position   (negative: earlier tokens)"));
    m_xAxis->setLabelFormat("%.0f");
    m_xAxis->setTickType(QValueAxis::TicksDynamic);
    m_xAxis->setTickAnchor(0.0);
    m_xAxis->setMinorTickCount(0);
    m_yAxis->setTitleText(tr("mean attention weight"));
    m_yAxis->setLabelFormat("%.2g");
    addAxes(c, m_xAxis, m_yAxis, {m_zero, m_bars, m_best});
    connect(c, &QChart::plotAreaChanged, this, &OffsetChart::updateTicks);
    connect(m_xAxis, &QValueAxis::rangeChanged, this, &OffsetChart::updateTicks);
    applyTheme();
    clearData();
}

void OffsetChart::setData(Data profile) {
    chart()->zoomReset();  // a zoom into the previous profile's offsets means nothing here
    m_shown.clear();
    for (const analysis::OffsetValue& v : profile.offsets) {
        if (v.allowedQueries > 0) {
            m_shown.push_back(v);
        }
    }
    QList<QPointF> bars;
    QList<QPointF> best;
    bars.reserve(static_cast<qsizetype>(4 * m_shown.size()));
    double top = 0;
    for (const analysis::OffsetValue& v : m_shown) {
        const double height = std::isfinite(v.meanAttention) ? v.meanAttention : 0.0;
        appendBar(bars, v.offset, height);
        if (profile.bestOffset && v.offset == *profile.bestOffset) {
            appendBar(best, v.offset, height);
        }
        top = std::max(top, height);
    }
    m_barsUpper->replace(bars);
    m_bestUpper->replace(best);
    const int first = m_shown.empty() ? 0 : m_shown.front().offset;
    const int last = m_shown.empty() ? 0 : m_shown.back().offset;
    m_barsLower->replace(QList<QPointF>{{first - kHalfBar, 0}, {last + kHalfBar, 0}});
    m_bestLower->replace(best.isEmpty() ? QList<QPointF>{}
                                        : QList<QPointF>{best.front(), best.back()});
    m_best->setName(
        profile.bestOffset
            ? tr("r* = %1: most often the row maximum").arg(offsetText(*profile.bestOffset))
            : QString());
    for (QLegendMarker* marker : chart()->legend()->markers(m_best)) {
        marker->setVisible(!best.isEmpty());
    }
    setValueRange(m_yAxis, top);
    m_zero->replace(QList<QPointF>{{0, m_yAxis->min()}, {0, m_yAxis->max()}});
    setOffsetRange(first, last);
    chart()->setTitle(tr("Mean attention by offset — head L%1 H%2")
                          .arg(profile.head.layer)
                          .arg(profile.head.head));
}

void OffsetChart::clearData() {
    chart()->zoomReset();
    m_shown.clear();
    m_barsUpper->clear();
    m_barsLower->clear();
    m_bestUpper->clear();
    m_bestLower->clear();
    for (QLegendMarker* marker : chart()->legend()->markers(m_best)) {
        marker->setVisible(false);
    }
    setValueRange(m_yAxis, 1.0);
    m_zero->replace(QList<QPointF>{{0, m_yAxis->min()}, {0, m_yAxis->max()}});
    setOffsetRange(-1, 1);
    chart()->setTitle(tr("Mean attention by offset"));
}

// Half a bar of margin beyond the outer bars; ticks at whole offsets anchored at 0.
void OffsetChart::setOffsetRange(int first, int last) {
    m_xAxis->setRange(first - 0.6, last + 0.6);
    updateTicks();
}

// The tick spacing depends on the plot width, known only after layout.
void OffsetChart::updateTicks() {
    double plotWidth = chart()->plotArea().width();
    if (plotWidth < 20) {
        plotWidth = std::max(200, width() - 120);  // not laid out yet: a fair guess
    }
    const double span = m_xAxis->max() - m_xAxis->min();
    const double interval = offsetTickInterval(plotWidth / std::max(1.0, span));
    if (interval != m_xAxis->tickInterval()) {
        m_xAxis->setTickInterval(interval);
    }
}

QString OffsetChart::tooltipFor(int offset) const {
    const auto it = std::find_if(m_shown.begin(), m_shown.end(),
                                 [offset](const auto& v) { return v.offset == offset; });
    if (it == m_shown.end()) {
        return {};
    }
    QString text = tr("Offset %1 (%2)\nmean attention: %3\nover %4 queries")
                       .arg(offsetText(offset), offsetMeaning(offset))
                       .arg(it->meanAttention, 0, 'f', 4)
                       .arg(it->queries);
    if (it->allowedQueries < it->queries) {
        text += tr(", %1 of which may see that key").arg(it->allowedQueries);
    }
    text += '\n' + tr("row maximum here for %1 queries").arg(it->argmaxQueries);
    return text;
}

void OffsetChart::mouseMoveEvent(QMouseEvent* event) {
    const QPointF scene = mapToScene(event->position().toPoint());
    const QPointF inChart = chart()->mapFromScene(scene);
    QString text;
    if (chart()->plotArea().contains(inChart)) {
        const QPointF value = chart()->mapToValue(inChart, m_bars);
        text = tooltipFor(static_cast<int>(std::lround(value.x())));
    }
    if (text.isEmpty()) {
        QToolTip::hideText();
    } else {
        QToolTip::showText(event->globalPosition().toPoint(), text, this);
    }
    QChartView::mouseMoveEvent(event);
}

void OffsetChart::mouseDoubleClickEvent(QMouseEvent* event) {
    chart()->zoomReset();
    QChartView::mouseDoubleClickEvent(event);
}

void OffsetChart::leaveEvent(QEvent* event) {
    QToolTip::hideText();
    QChartView::leaveEvent(event);
}

void OffsetChart::colourSeries(const QPalette& pal, const QColor& dataColor) {
    m_bars->setBrush(withAlpha(dataColor, 0.8f));
    m_bars->setPen(QPen(outlineColor(dataColor, pal), 1));
    m_best->setBrush(withAlpha(selectionColor(), 0.9f));
    m_best->setPen(QPen(outlineColor(selectionColor(), pal), 1));
    m_zero->setPen(QPen(referenceLineColor(pal), 1.5, Qt::DashLine));
}

}  // namespace attnscope::app
