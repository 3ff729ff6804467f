// The "Compare models" tab (issue 32): the model open (A) against a second model of the same
// layers and heads (B) — one model as F16 and as Q4_K_M, as safetensors and as GGUF — head by
// head, on the sentence on screen. "Compare with another model…" opens B in the background
// (progress and Cancel here, failures on the message bar); then a layers × heads grid coloured
// by each head's Jensen–Shannon divergence per query row, with its colour bar and a tool tip
// giving the total, the mean and the row that moved most, and beside it the heads ranked, most
// moved first, sortable by any column. A click on either selects the head in every view; a
// double-click asks for the Compare tab, which draws the head in both models side by side. Both
// follow the sentence and the settings: ModelCompareJob recomputes them in the background.
#pragma once

#include <memory>

#include <QWidget>

#include "analyses/model_compare/model_compare_document.h"
#include "attnscope/base/head_id.h"

class QCheckBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;

namespace attnscope::app {

class AnalysisSession;
class ComputeService;
class DivergenceTableModel;
class HeatmapWidget;
class PlaceholderStack;
class SecondModelJob;

namespace corpus {
class SummaryLine;
}

class ModelCompareView : public QWidget {
    Q_OBJECT

public:
    ModelCompareView(AnalysisSession* session, ComputeService* service, QWidget* parent = nullptr);

    // The file dialog for the second model: a .gguf file, or a model folder's config.json.
    void askForModel();
    // Opens `path` (a folder or a .gguf file) as the second model, in the background.
    void openModel(const QString& path);

    bool isLoading() const;

    HeatmapWidget* grid() const { return m_grid; }

    QTableView* table() const { return m_table; }

    // What the tab says above the grid: the comparison's summary, or why there is none.
    QString noteText() const;
    // The text shown instead of the grid and the ranking; empty while they show.
    QString placeholderText() const;

signals:
    // A head double-clicked: show it in both models side by side.
    void headActivated(attnscope::HeadId head);

private:
    QWidget* buildControls();
    QWidget* buildResults();
    void refresh();
    void showComparison(const ModelCompareDocument::Comparison& c);
    void fitSplit(int layers, int heads);
    void showSelection();
    QString gridToolTip(int layer, int head) const;
    QString summaryOf(const ModelCompareDocument::Comparison& c) const;
    QString emptyText() const;
    void setLoading(bool loading);

    AnalysisSession* m_session;
    ModelCompareDocument& m_document;
    SecondModelJob& m_loader;
    QPushButton* m_open;
    corpus::SummaryLine* m_modelLine;
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    QCheckBox* m_onGrid;
    QLabel* m_note;
    PlaceholderStack* m_stack;
    HeatmapWidget* m_grid;
    DivergenceTableModel* m_model;
    QSortFilterProxyModel* m_sorted;
    QTableView* m_table;
    QSplitter* m_split;
    bool m_splitFitted = false;
    bool m_comparing = false;
    bool m_syncing = false;
    QString m_loadError;  // what the message bar said of the last failed load
};

}  // namespace attnscope::app
