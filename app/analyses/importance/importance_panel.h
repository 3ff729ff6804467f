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
// The panel owns no job and no result: the ComputeService computes in the background (progress
// in units, Cancel) and the AnalysisSession holds the run, which a new model drops. A failure
// goes to the message bar and the previous result stays. GUI thread only.
#pragma once

#include <memory>

#include <QStringList>
#include <QWidget>

#include "attnscope/base/head_id.h"
#include "render/heatmap_image.h"
#include "session/analysis_session.h"  // HeadId as a metatype, for headActivated

class QComboBox;
class QDoubleSpinBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;
class QToolButton;

namespace attnscope::app {

namespace corpus {
class SummaryLine;
}

class ComputeService;
class HeatmapWidget;
class ImportanceTableModel;
class PruningChart;

class ImportancePanel : public QWidget {
    Q_OBJECT

public:
    ImportancePanel(AnalysisSession* session, ComputeService* service, QWidget* parent = nullptr);

    QSize sizeHint() const override { return {640, 260}; }

    // Computes on `path` with the chosen options (replacing a running importance job); errors
    // go to the session.
    void startComputing(const QString& path);
    // Computes on the file in the path field, or asks for one when it is empty.
    void computeChosenFile();
    void cancelComputing();

    bool isComputing() const;
    // Opens a (non-modal) file dialog; the chosen file goes into the path field and is run.
    void askForCorpus();

    // The options as the widgets hold them, and setting them (tests, --importance).
    ImportanceRequest request() const;
    void setRequest(const ImportanceRequest& request);

    ImportanceTableModel* tableModel() const { return m_model; }

    QSortFilterProxyModel* sortedModel() const { return m_sorted; }

    QTableView* table() const { return m_table; }

    HeatmapWidget* heatmap() const { return m_heatmap; }

    PruningChart* chart() const { return m_chart; }

    QString summaryText() const;

    // The heatmap's title: "Δ loss when the head is ablated alone".
    static QString legendText();

    const render::ColorRange& heatmapRange() const { return m_range; }

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
    void headActivated(attnscope::HeadId head);

private:
    QWidget* buildOptions();
    QHBoxLayout* buildRunOptions(QWidget* box);  // ablation, units, sentences, seed, mask
    QWidget* buildResults();
    QWidget* buildHeatmap(QWidget* parent);
    QWidget* buildTable(QWidget* parent);
    QToolButton* buildExportButton(QWidget* parent);
    void connectService();
    void refreshForModel();
    void showRun();
    void refreshHeatmap();
    void refreshSelection();
    void setBusy(bool busy);
    void activateUnit(int layer, int unit);
    QString heatmapTooltip(int row, int col) const;

    AnalysisSession* m_session;
    ComputeService* m_service;
    ImportanceTableModel* m_model;
    QSortFilterProxyModel* m_sorted;
    QLineEdit* m_path = nullptr;
    QPushButton* m_browse = nullptr;
    QComboBox* m_kind = nullptr;
    QComboBox* m_units = nullptr;
    QSpinBox* m_sentences = nullptr;
    QSpinBox* m_seed = nullptr;
    QDoubleSpinBox* m_maskPercent = nullptr;
    QPushButton* m_compute = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    QToolButton* m_export = nullptr;
    corpus::SummaryLine* m_summary = nullptr;
    // How earlier runs ended without success ("Head importance on … cancelled/failed"), until one
    // succeeds. A list: a run cancelled by a new one ends while the new one runs.
    QStringList m_endNotices;
    HeatmapWidget* m_heatmap = nullptr;
    QTableView* m_table = nullptr;
    PruningChart* m_chart = nullptr;
    render::ColorRange m_range;
};

}  // namespace attnscope::app
