#include "analyses/entropy/entropy_charts.h"

#include <algorithm>

#include <QChartView>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>

#include "analyses/entropy/head_metric_chart.h"
#include "analyses/entropy/query_entropy_chart.h"
#include "analyses/registry.h"
#include "attnscope/analysis/head_stats.h"
#include "session/analysis_session.h"
#include "widgets/attention_kind_combo.h"
#include "widgets/chart_export.h"
#include "widgets/named.h"
#include "widgets/placeholder_stack.h"

namespace attnscope::app {

namespace {

// The reference of the per-head entropy chart: the mean over query rows of ln(allowed keys),
// the entropy a head would have if it spread every row uniformly. Fully masked rows are left
// out, as they are of every head's mean entropy (HeadStats), so the two stay comparable.
float meanUniformEntropy(const forward::ForwardResult& forward, const std::vector<float>& uniform) {
    double sum = 0;
    int rows = 0;
    for (int q = 0; q < static_cast<int>(uniform.size()); ++q) {
        const auto& masked = forward.fullyMaskedRows;
        if (std::find(masked.begin(), masked.end(), q) != masked.end()) {
            continue;
        }
        sum += uniform[static_cast<std::size_t>(q)];
        ++rows;
    }
    return rows > 0 ? static_cast<float>(sum / rows) : 0.0f;
}

// A layer that uses the result's `allowed` mask: the first global layer when the layers'
// masks differ (Gemma's local layers have their own), else layer 0.
int globalLayer(const forward::ForwardResult& forward) {
    const auto& windowed = forward.windowedLayers;
    return static_cast<int>(std::find(windowed.begin(), windowed.end(), 0) - windowed.begin());
}

}  // namespace

EntropyChartsView::EntropyChartsView(AnalysisSession* session, QWidget* parent)
    : QWidget(parent),
      m_session(session),
      m_stack(named<PlaceholderStack>("entropyChartsStack", this)),
      m_headTabs(named<QTabWidget>("entropyHeadTabs", this)),
      m_headEntropy(named<HeadMetricChart>(
          "headEntropyChart",
          HeadMetricChart::Labels{tr("Mean attention entropy per head"), tr("entropy (nats)"),
                                  tr("mean entropy"), tr("nats"),
                                  tr("uniform maximum (mean ln n)")},
          this)),
      m_maxLogit(named<HeadMetricChart>(
          "maxLogitChart",
          HeadMetricChart::Labels{tr("Largest |logit| per head"), tr("max |scaled logit| (q·k/√d)"),
                                  tr("max |logit|"), QString(), QString()},
          this)),
      m_queryEntropy(named<QueryEntropyChart>("queryEntropyChart", this)) {
    setObjectName("entropyCharts");
    m_stack->placeholder()->setObjectName("entropyChartsPlaceholder");

    m_headTabs->setDocumentMode(true);
    m_headTabs->addTab(m_headEntropy, tr("Entropy per head"));
    m_headTabs->addTab(m_maxLogit, tr("Max |logit| per head"));
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName("entropyChartsSplitter");
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(m_headTabs);
    splitter->addWidget(m_queryEntropy);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({1000, 1000});  // equal halves; size hints alone favour the tabs
    // Enough for a readable plot; more would set the window's minimum height past a 1024 × 700
    // screen when a bottom dock is open (the tabs take the tallest page's minimum).
    for (QWidget* chart : {static_cast<QWidget*>(m_headEntropy), static_cast<QWidget*>(m_maxLogit),
                           static_cast<QWidget*>(m_queryEntropy)}) {
        chart->setMinimumHeight(150);
    }

    m_stack->setPage(splitter);

    for (HeadMetricChart* chart : {m_headEntropy, m_maxLogit}) {
        connect(chart, &HeadMetricChart::headClicked, m_session, &AnalysisSession::selectHead);
    }
    connect(m_session, &AnalysisSession::resultChanged, this, &EntropyChartsView::refreshResult);
    connect(m_session, &AnalysisSession::selectedHeadChanged, this,
            &EntropyChartsView::refreshSelection);
    refreshResult();
}

QChartView* EntropyChartsView::chartView(Chart which) const {
    if (which == Chart::HeadEntropy) {
        return m_headEntropy;
    }
    if (which == Chart::MaxLogit) {
        return m_maxLogit;
    }
    return m_queryEntropy;
}

// The per-query chart has no tab: it is always on screen below them.
void EntropyChartsView::showChart(Chart which) {
    if (which != Chart::QueryEntropy) {
        m_headTabs->setCurrentWidget(chartView(which));
    }
}

bool EntropyChartsView::saveChart(Chart which, const QString& path, QString* error) const {
    if (!hasResult()) {
        if (error) {
            *error = path + tr(": there is no result to export yet");
        }
        return false;
    }
    QChartView* view = chartView(which);
    // A chart on a hidden tab was never laid out (QStackedLayout sizes only the current page):
    // give it the size of the visible one so the file looks like the screen.
    if (!view->isVisible() && m_headTabs->currentWidget()->width() > 0) {
        view->resize(m_headTabs->currentWidget()->size());
    }
    return saveChartView(view, path, error);
}

bool EntropyChartsView::hasResult() const {
    return m_stack->showsPage();
}

HeadId EntropyChartsView::selectedHead() const {
    const auto result = m_session->result();
    const HeadId h = m_session->selectedHead();
    if (!result) {
        return h;
    }
    // The session clamps to the model; a result is always from that model, but be safe.
    return {std::clamp(h.layer, 0, std::max(0, result->forward.nLayers - 1)),
            std::clamp(h.head, 0, std::max(0, result->forward.nHeads - 1))};
}

void EntropyChartsView::refreshResult() {
    const auto result = m_session->result();
    if (!result || result->stats.empty() || result->forward.nTokens <= 0) {
        m_uniform.clear();
        m_labels.clear();
        m_headEntropy->clearValues();
        m_maxLogit->clearValues();
        m_queryEntropy->clearRows();
        m_stack->showPlaceholder(
            tr("No result yet.\nOpen a model and enter a sentence to see the attention "
               "entropy of every head."));
        return;
    }
    const auto& forward = result->forward;
    m_uniform = analysis::uniformEntropy(forward, globalLayer(forward));
    m_labels = queryLabels(*m_session);  // cross-attention: the target token each row produces
    std::vector<float> entropy;
    std::vector<float> maxLogit;
    entropy.reserve(result->stats.size());
    maxLogit.reserve(result->stats.size());
    for (const analysis::HeadStats& s : result->stats) {
        entropy.push_back(s.meanEntropy);
        maxLogit.push_back(s.maxAbsLogit);
    }
    m_headEntropy->setValues(entropy, forward.nLayers, forward.nHeads,
                             meanUniformEntropy(forward, m_uniform));
    m_maxLogit->setValues(maxLogit, forward.nLayers, forward.nHeads, std::nullopt);
    m_stack->showPage();
    refreshSelection();
}

void EntropyChartsView::refreshSelection() {
    const auto result = m_session->result();
    if (!result || m_uniform.empty()) {
        return;
    }
    const HeadId head = selectedHead();
    m_headEntropy->setSelectedHead(head);
    m_maxLogit->setSelectedHead(head);
    const auto entropy = result->forward.entropyOf(head);
    QueryEntropyChart::Rows rows;
    rows.head = head;
    rows.entropy.assign(entropy.data(), entropy.data() + entropy.size());
    rows.uniform = analysis::uniformEntropy(result->forward, head.layer);  // its own mask
    rows.fullyMasked = result->forward.fullyMaskedRows;
    rows.labels = m_labels;
    m_queryEntropy->setRows(std::move(rows));
}

// The Entropy tab: every head's entropy and |logit| charts for the sentence on screen.
Analysis entropyAnalysis() {
    return tabAnalysis<EntropyChartsView>("entropy", QT_TRANSLATE_NOOP("QObject", "Entropy"));
}

}  // namespace attnscope::app
