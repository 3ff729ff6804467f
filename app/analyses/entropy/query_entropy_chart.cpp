#include "analyses/entropy/query_entropy_chart.h"

#include <algorithm>
#include <cmath>

#include <QCategoryAxis>
#include <QCursor>
#include <QFontMetricsF>
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

constexpr int kMaxLabelChars = 12;  // longer token labels are elided on the axis
constexpr int kMaxMarkedRows = 160;

QString axisLabel(const QString& label) {
    return label.size() > kMaxLabelChars ? label.left(kMaxLabelChars - 1) + QChar(0x2026) : label;
}

// [first, last] ranges of consecutive rows not in `masked`.
std::vector<std::pair<int, int>> unmaskedRuns(int n, const std::vector<int>& masked) {
    std::vector<bool> isMasked(static_cast<std::size_t>(std::max(0, n)), false);
    for (const int q : masked) {
        if (q >= 0 && q < n) {
            isMasked[static_cast<std::size_t>(q)] = true;
        }
    }
    std::vector<std::pair<int, int>> runs;
    for (int q = 0; q < n; ++q) {
        if (isMasked[static_cast<std::size_t>(q)]) {
            continue;
        }
        if (!runs.empty() && runs.back().second == q - 1) {
            runs.back().second = q;
        } else {
            runs.emplace_back(q, q);
        }
    }
    return runs;
}

}  // namespace

QueryEntropyChart::QueryEntropyChart(QWidget* parent)
    : ThemedChartView(parent),
      m_points(named<QScatterSeries>("points")),
      m_xAxis(new QCategoryAxis),
      m_yAxis(new QValueAxis) {
    QChart* c = chart();
    m_xAxis->setTitleText(tr("query token (position)"));
    m_xAxis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    m_yAxis->setTitleText(tr("entropy (nats)"));
    m_yAxis->setLabelFormat("%.3g");
    addAxes(c, m_xAxis, m_yAxis);
    m_points->setName(tr("rows"));
    ensureRuns(1);
    c->addSeries(m_points);  // after the first run so the markers sit on top of the lines
    m_points->attachAxis(m_xAxis);
    m_points->attachAxis(m_yAxis);
    for (QLegendMarker* marker : c->legend()->markers(m_points)) {
        marker->setVisible(false);
    }
    connect(m_points, &QXYSeries::hovered, this, &QueryEntropyChart::showTooltip);
    // The label step depends on the plot width, known only after layout.
    connect(c, &QChart::plotAreaChanged, this, [this] { relabelAxis(false); });
    applyTheme();
    clearRows();
}

void QueryEntropyChart::ensureRuns(int count) {
    auto* c = chart();
    const bool grows = static_cast<int>(m_entropyRuns.size()) < count;
    while (static_cast<int>(m_entropyRuns.size()) < count) {
        const bool first = m_entropyRuns.empty();
        auto* reference = new QLineSeries;
        auto* entropy = new QLineSeries;
        reference->setObjectName(QStringLiteral("reference%1").arg(m_referenceRuns.size()));
        entropy->setObjectName(QStringLiteral("entropy%1").arg(m_entropyRuns.size()));
        reference->setName(tr("uniform: ln(allowed keys)"));
        entropy->setName(tr("entropy of the row"));
        connect(entropy, &QXYSeries::hovered, this, &QueryEntropyChart::showTooltip);
        for (QLineSeries* s : {reference, entropy}) {
            c->addSeries(s);
            s->attachAxis(m_xAxis);
            s->attachAxis(m_yAxis);
            if (!first) {  // one legend entry per kind, not per run
                for (QLegendMarker* marker : c->legend()->markers(s)) {
                    marker->setVisible(false);
                }
            }
        }
        m_referenceRuns.push_back(reference);
        m_entropyRuns.push_back(entropy);
    }
    if (grows) {
        applyTheme();  // new series start with the theme's colours
    }
}

void QueryEntropyChart::setRows(Rows rows) {
    m_rows = std::move(rows);
    const int n = static_cast<int>(m_rows.entropy.size());
    const auto runs = unmaskedRuns(n, m_rows.fullyMasked);
    ensureRuns(std::max<int>(1, static_cast<int>(runs.size())));
    m_runsInUse = static_cast<int>(runs.size());

    float top = 0;
    QList<QPointF> points;
    points.reserve(n);
    for (std::size_t r = 0; r < m_entropyRuns.size(); ++r) {
        QList<QPointF> entropy;
        QList<QPointF> uniform;
        if (r < runs.size()) {
            for (int q = runs[r].first; q <= runs[r].second; ++q) {
                const float h = m_rows.entropy[static_cast<std::size_t>(q)];
                const float u = q < static_cast<int>(m_rows.uniform.size())
                                    ? m_rows.uniform[static_cast<std::size_t>(q)]
                                    : 0.0f;
                entropy.append(QPointF(q, h));
                uniform.append(QPointF(q, u));
                points.append(QPointF(q, h));
                top = std::max({top, h, u});
            }
        }
        m_entropyRuns[r]->replace(entropy);
        m_referenceRuns[r]->replace(uniform);
    }
    m_points->replace(points);
    // Markers help up to a few dozen rows; beyond ~160 they merge into a band and hide the
    // line, so only the line is drawn (it answers hovers too).
    m_points->setMarkerSize(n <= 64 ? 8 : 5);
    m_points->setVisible(n <= kMaxMarkedRows);
    m_xAxis->setRange(-0.5, std::max(0, n) - 0.5);
    setValueRange(m_yAxis, top);

    QString title = tr("Entropy per query position — head L%1 H%2")
                        .arg(m_rows.head.layer)
                        .arg(m_rows.head.head);
    const int masked = n - static_cast<int>(points.size());
    if (masked > 0) {
        title += masked == 1 ? tr(" (1 fully masked row left out)")
                             : tr(" (%1 fully masked rows left out)").arg(masked);
    }
    chart()->setTitle(title);
    relabelAxis(true);
}

void QueryEntropyChart::clearRows() {
    m_rows = {};
    m_runsInUse = 0;
    m_points->clear();
    for (std::size_t r = 0; r < m_entropyRuns.size(); ++r) {
        m_entropyRuns[r]->clear();
        m_referenceRuns[r]->clear();
    }
    m_xAxis->setRange(-0.5, 0.5);
    setValueRange(m_yAxis, 1.0);
    chart()->setTitle(tr("Entropy per query position"));
    relabelAxis(true);
}

// Labels every k-th token so neighbouring labels never overlap: horizontal when every label
// fits, otherwise rotated by 90 degrees with k chosen from the font height.
void QueryEntropyChart::relabelAxis(bool force) {
    const int n = static_cast<int>(m_rows.labels.size());
    double plotWidth = chart()->plotArea().width();
    if (plotWidth < 20) {
        plotWidth = std::max(200, width() - 120);  // not laid out yet: a fair guess
    }
    const QFontMetricsF fm(m_xAxis->labelsFont());
    double widest = 0;
    for (const QString& label : m_rows.labels) {
        widest = std::max(widest, fm.horizontalAdvance(axisLabel(label)));
    }
    const double perToken = plotWidth / std::max(1, n);
    bool rotated = false;
    int step = 1;
    if (perToken < widest + 12) {
        rotated = true;
        // Qt Charts elides a label wider than its share of the axis minus padding, and
        // counts the axis start as a share too; two line heights per label leave room.
        step = std::max(1, static_cast<int>(std::ceil((2 * fm.height() + 4) / perToken)));
    }
    if (!force && step == m_labelStep && rotated == m_labelsRotated) {
        return;
    }
    m_labelStep = step;
    m_labelsRotated = rotated;
    for (const QString& label : m_xAxis->categoriesLabels()) {
        m_xAxis->remove(label);
    }
    m_xAxis->setStartValue(-0.5);
    m_xAxis->setLabelsAngle(rotated ? -90 : 0);
    QStringList used;
    for (int q = 0; q < n; q += step) {
        QString label = axisLabel(m_rows.labels[q]);
        if (step > 1) {
            label = QStringLiteral("%1 %2").arg(q).arg(label);  // positions are not obvious
        }
        // QCategoryAxis needs unique labels; repeated tokens get invisible zero-width spaces.
        while (used.contains(label)) {
            label += QChar(0x200B);
        }
        used.append(label);
        m_xAxis->append(label, q);
    }
    m_xAxis->setRange(-0.5, std::max(0, n) - 0.5);
}

void QueryEntropyChart::showTooltip(const QPointF& point, bool state) {
    const int q = static_cast<int>(std::lround(point.x()));
    const int n = static_cast<int>(m_rows.entropy.size());
    if (!state || q < 0 || q >= n) {
        QToolTip::hideText();
        return;
    }
    const auto i = static_cast<std::size_t>(q);
    const float u = i < m_rows.uniform.size() ? m_rows.uniform[i] : 0.0f;
    const QString text =
        tr("Query %1 “%2”\nentropy: %3 nats\nuniform (ln %4 allowed keys): %5 nats")
            .arg(q)
            .arg(q < m_rows.labels.size() ? m_rows.labels[q] : QString())
            .arg(m_rows.entropy[i], 0, 'g', 4)
            .arg(std::lround(std::exp(u)))
            .arg(u, 0, 'g', 4);
    QToolTip::showText(QCursor::pos(), text, this);
}

void QueryEntropyChart::colourSeries(const QPalette& pal, const QColor& dataColor) {
    for (QLineSeries* s : m_entropyRuns) {
        s->setPen(QPen(dataColor, 2));
    }
    const QPen ref(referenceLineColor(pal), 2, Qt::DashLine);
    for (QLineSeries* s : m_referenceRuns) {
        s->setPen(ref);
    }
    m_points->setColor(dataColor);
    m_points->setBorderColor(outlineColor(dataColor, pal));
}

}  // namespace attnscope::app
