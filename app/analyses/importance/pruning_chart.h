// Michel et al.'s pruning curve of a head importance run (issue 17): x is the share of heads (or
// key/value groups) removed together, least important first; the loss on the left axis and the
// masked-token or next-token accuracy on the right one. The series and axes are created once
// and refilled, so a new run never rebuilds the chart. Hovering a point tells its numbers.
// GUI thread only.
#pragma once

#include <memory>

#include <QChartView>

#include "analyses/importance/importance_document.h"

class QLineSeries;
class QScatterSeries;
class QValueAxis;

namespace attnscope::app {

class PruningChart : public QChartView {
    Q_OBJECT

public:
    explicit PruningChart(QWidget* parent = nullptr);

    // Null clears the curve.
    void setRun(std::shared_ptr<const ImportanceRun> run);

    QLineSeries* lossSeries() const { return m_loss; }

    QLineSeries* accuracySeries() const { return m_accuracy; }

    QValueAxis* accuracyAxis() const { return m_accuracyAxis; }

    QValueAxis* lossAxis() const { return m_lossAxis; }

    QSize minimumSizeHint() const override { return {220, 120}; }

protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void applyTheme();
    void showTooltip(const QPointF& point, bool state);

    std::shared_ptr<const ImportanceRun> m_run;
    QLineSeries* m_loss;
    QLineSeries* m_accuracy;
    QValueAxis* m_xAxis;
    QValueAxis* m_lossAxis;
    QValueAxis* m_accuracyAxis;
};

}  // namespace attnscope::app
