// The entropy diagnostics of one result (methods.md §1.5, §8.3), three charts that observe the
// session:
//   - mean attention entropy of every head across the model, with the uniform maximum (mean
//     over query rows of ln(allowed keys)) as a reference line;
//   - the largest |scaled logit| of every head (the ViT-22B saturation diagnostic);
//   - the entropy of every query row of the selected head, with ln(allowed keys) per row.
// The two per-head charts share a tab (same x axis); the per-query chart sits below them.
// Clicking a head selects it in the session. All numbers come from the core's SentenceAnalysis;
// the view only copies them into series. GUI thread only.
#pragma once

#include <vector>

#include <QStringList>
#include <QWidget>

#include "attnscope/base/head_id.h"

class QChartView;
class QTabWidget;

namespace attnscope::app {

class AnalysisSession;
class HeadMetricChart;
class PlaceholderStack;
class QueryEntropyChart;

class EntropyChartsView : public QWidget {
    Q_OBJECT

public:
    enum class Chart { HeadEntropy, QueryEntropy, MaxLogit };

    explicit EntropyChartsView(AnalysisSession* session, QWidget* parent = nullptr);

    HeadMetricChart* headEntropyChart() const { return m_headEntropy; }

    QueryEntropyChart* queryEntropyChart() const { return m_queryEntropy; }

    HeadMetricChart* maxLogitChart() const { return m_maxLogit; }

    QChartView* chartView(Chart which) const;

    // Brings a chart to the front (its tab), e.g. before exporting it.
    void showChart(Chart which);

    // Saves one chart: ".svg" as vectors, ".png" (or another raster suffix) as a grab. Written
    // atomically; returns false and sets *error to "<path>: <reason>" on failure.
    bool saveChart(Chart which, const QString& path, QString* error = nullptr) const;

    // False while the empty-state placeholder is shown.
    bool hasResult() const;

private:
    void refreshResult();
    void refreshSelection();
    HeadId selectedHead() const;

    AnalysisSession* m_session;
    PlaceholderStack* m_stack;
    QTabWidget* m_headTabs;
    HeadMetricChart* m_headEntropy;
    HeadMetricChart* m_maxLogit;
    QueryEntropyChart* m_queryEntropy;
    std::vector<float> m_uniform;  // [nTokens] ln(allowed keys) of the result's global layers
    QStringList m_labels;          // [nTokens]
};

}  // namespace attnscope::app
