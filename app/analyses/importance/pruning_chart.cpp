#include "analyses/importance/pruning_chart.h"

#include <algorithm>
#include <cmath>

#include <QCursor>
#include <QEvent>
#include <QLineSeries>
#include <QResizeEvent>
#include <QToolTip>
#include <QValueAxis>

#include "widgets/chart_axis.h"
#include "widgets/chart_palette.h"

namespace attnscope::app {

namespace {

constexpr int kLegendMinHeight = 230;

// Loss axis from a little below the lowest to a little above the highest point: a pruning
// curve's interest is its knee, which a zero-based axis would flatten.
void setLossRange(QValueAxis* axis, double lo, double hi) {
    if (!std::isfinite(lo) || !std::isfinite(hi)) {
        lo = 0;
        hi = 1;
    }
    const double span = std::max(hi - lo, 1e-3 * std::max(1.0, std::abs(hi)));
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickInterval(niceTickInterval(span, 5));
    axis->setTickAnchor(0.0);
    axis->setRange(lo - 0.06 * span, hi + 0.06 * span);
}

}  // namespace

PruningChart::PruningChart(QWidget* parent)
    : QChartView(parent),
      m_loss(new QLineSeries),
      m_accuracy(new QLineSeries),
      m_xAxis(new QValueAxis),
      m_lossAxis(new QValueAxis),
      m_accuracyAxis(new QValueAxis) {
    setRenderHint(QPainter::Antialiasing);
    setRubberBand(QChartView::NoRubberBand);
    QChart* c = chart();
    c->setAnimationOptions(QChart::NoAnimation);
    c->setMargins(QMargins(2, 2, 2, 2));
    c->legend()->setAlignment(Qt::AlignTop);
    m_loss->setObjectName(QStringLiteral("pruningLoss"));
    m_loss->setName(tr("loss"));
    m_loss->setPointsVisible(true);
    m_accuracy->setObjectName(QStringLiteral("pruningAccuracy"));
    m_accuracy->setName(tr("accuracy"));
    m_accuracy->setPointsVisible(true);
    c->addSeries(m_loss);
    c->addSeries(m_accuracy);
    m_xAxis->setRange(0, 100);
    m_xAxis->setTickType(QValueAxis::TicksDynamic);
    m_xAxis->setTickAnchor(0);
    m_xAxis->setTickInterval(20);
    m_xAxis->setMinorTickCount(1);
    m_xAxis->setLabelFormat(QStringLiteral("%d"));
    m_lossAxis->setTitleText(tr("loss"));
    m_lossAxis->setLabelFormat(QStringLiteral("%.3g"));
    m_accuracyAxis->setTitleText(tr("accuracy"));
    m_accuracyAxis->setRange(0, 100);
    m_accuracyAxis->setTickType(QValueAxis::TicksDynamic);
    m_accuracyAxis->setTickAnchor(0);
    m_accuracyAxis->setTickInterval(25);
    m_accuracyAxis->setLabelFormat(QStringLiteral("%g %%"));
    c->addAxis(m_xAxis, Qt::AlignBottom);
    c->addAxis(m_lossAxis, Qt::AlignLeft);
    c->addAxis(m_accuracyAxis, Qt::AlignRight);
    m_loss->attachAxis(m_xAxis);
    m_loss->attachAxis(m_lossAxis);
    m_accuracy->attachAxis(m_xAxis);
    m_accuracy->attachAxis(m_accuracyAxis);
    setToolTip(
        tr("Loss and accuracy with the least important heads removed together: each "
           "point ablates the first heads of the order by Δ loss, least important first "
           "(Michel et al. 2019)"));
    connect(m_loss, &QXYSeries::hovered, this, &PruningChart::showTooltip);
    connect(m_accuracy, &QXYSeries::hovered, this, &PruningChart::showTooltip);
    applyTheme();
    setRun(nullptr);
}

void PruningChart::setRun(std::shared_ptr<const ImportanceRun> run) {
    m_run = std::move(run);
    QList<QPointF> loss;
    QList<QPointF> accuracy;
    double lo = INFINITY;
    double hi = -INFINITY;
    if (m_run) {
        for (const analysis::PruningPoint& p : m_run->result.pruning) {
            loss.append({100.0 * p.fraction, p.loss});
            accuracy.append({100.0 * p.fraction, 100.0 * p.accuracy});
            if (std::isfinite(p.loss)) {
                lo = std::min(lo, p.loss);
                hi = std::max(hi, p.loss);
            }
        }
    }
    m_loss->replace(loss);
    m_accuracy->replace(accuracy);
    setLossRange(m_lossAxis, lo, hi);
    // From 0 to a little above the best step, not to 100 %: a small model's accuracy (15–30 %)
    // would otherwise run flat along the bottom and hide what pruning costs.
    double top = 0;
    for (const QPointF& p : accuracy) {
        top = std::max(top, std::isfinite(p.y()) ? p.y() : 0.0);
    }
    top = std::min(100.0, std::max(5.0, std::ceil(top * 1.15 / 5.0) * 5.0));
    m_accuracyAxis->setTickInterval(niceTickInterval(top, 4));
    m_accuracyAxis->setRange(0, top);
    const bool groups = m_run && m_run->result.kvGroups;
    // Short: the title must fit a pane a third of a 1024-pixel dock wide.
    m_xAxis->setTitleText(groups ? tr("key/value groups removed (%)") : tr("heads removed (%)"));
    const bool masked = m_run && m_run->result.objective == analysis::ImportanceObjective::MaskedLm;
    m_accuracy->setName(masked ? tr("masked-token accuracy") : tr("next-token accuracy"));
    m_loss->setName(tr("loss"));
}

void PruningChart::showTooltip(const QPointF& point, bool state) {
    if (!state || !m_run || m_run->result.pruning.empty()) {
        QToolTip::hideText();
        return;
    }
    // The nearest step: both series share their x values.
    const auto& steps = m_run->result.pruning;
    const auto nearest =
        std::min_element(steps.begin(), steps.end(), [&](const auto& a, const auto& b) {
            return std::abs(100.0 * a.fraction - point.x()) <
                   std::abs(100.0 * b.fraction - point.x());
        });
    const int total = m_run->result.nLayers * m_run->result.nUnits;
    QToolTip::showText(QCursor::pos(),
                       tr("%1 % removed (%2 of %3)\nloss %4\naccuracy %5 %")
                           .arg(100.0 * nearest->fraction, 0, 'f', 0)
                           .arg(nearest->removed)
                           .arg(total)
                           .arg(nearest->loss, 0, 'f', 4)
                           .arg(100.0 * nearest->accuracy, 0, 'f', 1),
                       this);
}

void PruningChart::applyTheme() {
    const QPalette pal = palette();
    const QColor primary = applyChartTheme(chart(), pal);
    m_loss->setPen(QPen(primary, 2));
    m_loss->setColor(primary);
    m_accuracy->setPen(QPen(selectionColor(), 2, Qt::DashLine));
    m_accuracy->setColor(selectionColor());
    // Each axis in its series' colour, so the chart reads without its legend in a short dock.
    m_lossAxis->setTitleBrush(primary);
    m_lossAxis->setLabelsColor(primary);
    m_accuracyAxis->setTitleBrush(selectionColor());
    m_accuracyAxis->setLabelsColor(selectionColor());
}

void PruningChart::resizeEvent(QResizeEvent* event) {
    // The legend takes a row the plot needs when the dock is short (1024 × 700 screens).
    chart()->legend()->setVisible(event->size().height() >= kLegendMinHeight);
    QChartView::resizeEvent(event);
}

void PruningChart::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange) {
        applyTheme();
    }
    QChartView::changeEvent(event);
}

}  // namespace attnscope::app
