// The entropy of every query row of one head: x is the token position with token labels on
// the axis, y the row's entropy in nats, with ln(allowed keys of the row) as the reference (for
// a causal map it grows as ln(q + 1)). Fully masked rows have no distribution, so they are left
// out as gaps in the line rather than drawn as zeros.
//
// Series are pooled: one line per contiguous run of unmasked rows, reused across results with
// QXYSeries::replace. The axis labels every k-th token so that labels never overlap (512 tokens
// stay readable). GUI thread only.
#pragma once

#include <vector>

#include <QStringList>

#include "attnscope/base/head_id.h"
#include "widgets/themed_chart_view.h"

class QCategoryAxis;
class QLineSeries;
class QScatterSeries;
class QValueAxis;

namespace attnscope::app {

class QueryEntropyChart : public ThemedChartView {
    Q_OBJECT

public:
    struct Rows {
        HeadId head;
        std::vector<float> entropy;    // [nTokens] nats
        std::vector<float> uniform;    // [nTokens] ln(allowed keys)
        std::vector<int> fullyMasked;  // query rows with no allowed key
        QStringList labels;            // [nTokens]
    };

    explicit QueryEntropyChart(QWidget* parent = nullptr);

    void setRows(Rows rows);
    void clearRows();

    // One point per unmasked row, x = position; its markers are hidden beyond 160 rows.
    QScatterSeries* pointSeries() const { return m_points; }

    // The runs of consecutive unmasked rows currently drawn.
    int runCount() const { return m_runsInUse; }

    QLineSeries* entropyRun(int i) const { return m_entropyRuns.at(static_cast<std::size_t>(i)); }

    QLineSeries* referenceRun(int i) const {
        return m_referenceRuns.at(static_cast<std::size_t>(i));
    }

    // Every how many tokens the x axis has a label (1 = all of them).
    int labelStep() const { return m_labelStep; }

protected:
    void colourSeries(const QPalette& pal, const QColor& dataColor) override;

private:
    void ensureRuns(int count);
    void relabelAxis(bool force);
    void showTooltip(const QPointF& point, bool state);

    Rows m_rows;
    QScatterSeries* m_points;
    std::vector<QLineSeries*> m_entropyRuns;
    std::vector<QLineSeries*> m_referenceRuns;
    int m_runsInUse = 0;
    QCategoryAxis* m_xAxis;
    QValueAxis* m_yAxis;
    int m_labelStep = 0;
    bool m_labelsRotated = false;
};

}  // namespace attnscope::app
