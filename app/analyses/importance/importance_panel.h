// The "Importance" dock (issue 17; Michel et al. 2019): which heads matter on a corpus. Ablates
// every head (or key/value group) alone on a sentence file or treebank and shows
//  * a layers × heads heatmap of the loss change, on a diverging scale around 0, with its
//    legend "Δ loss when the head is ablated alone";
//  * a sortable table: rank, layer, head, Δ loss, ablated loss, accuracy;
//  * the pruning curve: loss and accuracy as more and more of the least important heads are
//    removed together (views/pruning_chart.h);
//  * a summary line (objective, sentences, targets, clean loss and accuracy);
//  * Export: the table as CSV, the whole run as HDF5, the heatmap as a figure, the chart.
// Clicking a cell or a row selects that head (the first query head of a group) and asks for the
// head view (headActivated).
//
// The panel is a CorpusPanel (corpus/corpus_panel.h): the ComputeService computes in the
// background (progress in thousandths of the passes, Cancel) and the session holds the run.
#pragma once

#include <QStringList>

#include "analyses/corpus/corpus_panel.h"
#include "analyses/importance/importance_document.h"

class QComboBox;
class QDoubleSpinBox;
class QHBoxLayout;
class QSortFilterProxyModel;
class QSpinBox;
class QToolButton;

namespace attnscope::app {

namespace corpus {
class SummaryLine;
}

class ImportanceTableModel;
class PruningChart;

class ImportancePanel : public CorpusPanel {
    Q_OBJECT

public:
    ImportancePanel(AnalysisSession* session, ComputeService* service, QWidget* parent = nullptr);

    QSize sizeHint() const override { return {640, 260}; }

    // Computes on `path` with the chosen options (CorpusPanel::start).
    void startComputing(const QString& path) { start(path); }

    void cancelComputing() { cancelRun(); }

    bool isComputing() const { return isRunning(); }

    // The options as the widgets hold them, and setting them (tests, --importance).
    ImportanceRequest request() const;
    void setRequest(const ImportanceRequest& request);

    ImportanceTableModel* tableModel() const { return m_model; }

    QSortFilterProxyModel* sortedModel() const { return m_sorted; }

    PruningChart* chart() const { return m_chart; }

    QString summaryText() const;

    // The heatmap's title: "Δ loss when the head is ablated alone".
    static QString legendText();

    // Written in the background (ComputeService::exportFile, which reports the end); the
    // figures at once. False, with the reason in the message bar, when there is nothing to
    // export or a figure cannot be written.
    bool exportCsv(const QString& path);
    bool exportResults(const QString& path);  // HDF5
    bool exportHeatmapFigure(const QString& path);
    bool exportChart(const QString& path);

signals:
    void computingFinished(bool ok);  // ok false: failed, cancelled or replaced
    void importanceShown(const QString& path);

protected:
    void launch(const QString& path) override;
    void runEnded(bool ok) override;

    bool hasResults() const override { return run() != nullptr; }

    QString heatmapTooltip(int row, int col) const override;
    std::optional<HeadId> headOfRow(int row) const override;

private:
    QWidget* buildOptions();
    QHBoxLayout* buildRunOptions(QWidget* box);  // ablation, units, sentences, seed, mask
    QWidget* buildResults();
    QWidget* buildHeatmap(QWidget* parent);
    QWidget* buildTable(QWidget* parent);
    QToolButton* buildExportButton(QWidget* parent);
    std::shared_ptr<const ImportanceRun> run() const;
    void refreshForModel();
    void showRun();
    void refreshHeatmap();
    void refreshSelection();
    void activateUnit(int layer, int unit);

    ImportanceTableModel* m_model;
    QSortFilterProxyModel* m_sorted;
    QComboBox* m_kind = nullptr;
    QComboBox* m_units = nullptr;
    QSpinBox* m_sentences = nullptr;
    QSpinBox* m_seed = nullptr;
    QDoubleSpinBox* m_maskPercent = nullptr;
    corpus::SummaryLine* m_summary = nullptr;
    // How earlier runs ended without success ("Head importance on … cancelled/failed"), until one
    // succeeds. A list: a run cancelled by a new one ends while the new one runs.
    QStringList m_endNotices;
    PruningChart* m_chart = nullptr;
};

}  // namespace attnscope::app
