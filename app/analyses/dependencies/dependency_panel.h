// The "Dependencies" dock: scores every head of the open model against the gold trees of a
// CoNLL-U treebank (Clark et al. 2019, methods.md §1) and shows the relation table, the
// accuracy of every head for the chosen relation as a layers × heads heatmap, and exports both.
//
// The panel owns no job and no results: the ComputeService scores in the background (progress
// bar, Cancel button) and the AnalysisSession holds the treebank and the scores, which a new
// model drops (so the table never shows another model's heads). A failure is reported through
// the session and the previous results stay. Changing the aggregation or the subtype choice
// rescores the same treebank; the minimum count only regroups the table. The heatmap's colours
// span the accuracies shown (the colour bar states the range), or 0–1 when "Fixed 0–1" is on.
// Clicking a heatmap cell or double-clicking a table row selects that head and emits
// headActivated. GUI thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <QWidget>

#include "attnscope/analysis/dependency_accumulator.h"
#include "attnscope/base/head_id.h"
#include "render/heatmap_image.h"
#include "session/analysis_session.h"  // HeadId as a metatype, for headActivated

class QCheckBox;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;

namespace attnscope::app {

class ComputeService;
class DependencyTableModel;
class HeatmapWidget;

class DependencyPanel : public QWidget {
    Q_OBJECT

public:
    DependencyPanel(AnalysisSession* session, ComputeService* service, QWidget* parent = nullptr);

    // Tabbed with the sentence list, which sets the dock area's first height.
    QSize sizeHint() const override { return {480, 170}; }

    // Scores `path` with the session's model (replacing a running job); errors go to the session.
    void startScoring(const QString& path);
    void cancelScoring();

    bool isScoring() const;
    // Opens a (non-modal) file dialog; the chosen treebank is scored.
    void askForTreebank();

    DependencyTableModel* tableModel() const { return m_model; }

    HeatmapWidget* heatmap() const { return m_heatmap; }

    std::shared_ptr<const analysis::DependencyAccumulator> results() const;

    // The relation the heatmap shows; empty before any results.
    std::string currentRelation() const { return m_relation; }

    void selectRelation(const std::string& relation);

    // Colours span 0–1 instead of the accuracies shown.
    void setFixedRange(bool fixed);

    // The accuracies the heatmap's colours span (its colour bar says so).
    const render::ColorRange& heatmapRange() const { return m_range; }

    // The table is written in the background (ComputeService::exportFile; it reports the end);
    // the figure here. Errors go to the session. True when the export started (table) or the
    // file was written (figure).
    bool exportTableCsv(const QString& path);
    bool exportHeatmap(const QString& path);

signals:
    void scoringFinished(bool ok);             // ok false: failed, cancelled or replaced
    void treebankScored(const QString& path);  // after scores of `path` were shown
    void headActivated(attnscope::HeadId head);

private:
    QWidget* buildOptions();
    QWidget* buildResults();
    void showScores();
    void setBusy(bool busy);
    void rescore();
    void refreshTable();
    void refreshSummary();
    void refreshHeatmap();
    QString heatmapTooltip(int row, int col) const;
    analysis::ScoreOptions chosenOptions() const;
    analysis::Direction chosenDirection() const;

    AnalysisSession* m_session;
    ComputeService* m_service;
    DependencyTableModel* m_model;
    std::string m_relation;
    QPushButton* m_open = nullptr;
    QComboBox* m_from = nullptr;
    QCheckBox* m_subtypes = nullptr;
    QSpinBox* m_minCount = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    QLabel* m_summary = nullptr;
    QTableView* m_table = nullptr;
    QComboBox* m_direction = nullptr;
    QCheckBox* m_fixedRange = nullptr;
    render::ColorRange m_range;
    HeatmapWidget* m_heatmap = nullptr;
    QPushButton* m_exportCsv = nullptr;
    QPushButton* m_exportImage = nullptr;
};

}  // namespace attnscope::app
