// The "Dependencies" dock: scores every head of the open model against the gold trees of a
// CoNLL-U treebank (Clark et al. 2019, methods.md §1) and shows the relation table, the
// accuracy of every head for the chosen relation as a layers × heads heatmap, and exports both.
//
// Scoring runs in the background (DependencyScoring) with a progress bar and a Cancel button;
// a failure is reported through the session and the previous results stay. Changing the
// aggregation or the subtype choice rescores the same treebank; the minimum count only regroups
// the table. Clicking a heatmap cell or double-clicking a table row selects that head and emits
// headActivated. The loaded treebank also serves gold trees for sentences typed elsewhere
// (goldFor). GUI thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <QWidget>

#include "attnscope/analysis/dependency_accumulator.h"
#include "attnscope/base/head_id.h"
#include "panels/dependency_scoring.h"
#include "session/analysis_session.h"  // HeadId as a metatype, for headActivated

class QCheckBox;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;

namespace attnscope::app {

class DependencyTableModel;
class HeatmapWidget;

class DependencyPanel : public QWidget {
    Q_OBJECT

public:
    explicit DependencyPanel(AnalysisSession* session, QWidget* parent = nullptr);

    // Tabbed with the sentence list, which sets the dock area's first height.
    QSize sizeHint() const override { return {480, 170}; }

    // Starts scoring `path` with the session's model; errors go to the session.
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

    // The gold tree of the treebank sentence whose surface text is `text`, if one was loaded.
    std::optional<analysis::GoldSentence> goldFor(const std::string& text) const;

    // Exports; errors go to the session. True when the file was written.
    bool exportTableCsv(const QString& path);
    bool exportHeatmap(const QString& path);

signals:
    void scoringFinished(bool ok);             // ok false: failed or cancelled
    void treebankScored(const QString& path);  // after results from `path` were shown
    void headActivated(attnscope::HeadId head);

private:
    QWidget* buildOptions();
    QWidget* buildResults();
    void showRun(const DependencyRun& run);
    void onFailed(const QString& message);
    void setBusy(bool busy);
    void rescore();
    void refreshTable();
    void refreshSummary();
    void refreshHeatmap();
    QString heatmapTooltip(int row, int col) const;
    analysis::ScoreOptions chosenOptions() const;
    analysis::Direction chosenDirection() const;

    AnalysisSession* m_session;
    DependencyScoring* m_scoring;
    DependencyTableModel* m_model;
    DependencyRun m_run;
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
    HeatmapWidget* m_heatmap = nullptr;
    QPushButton* m_exportCsv = nullptr;
    QPushButton* m_exportImage = nullptr;
};

}  // namespace attnscope::app
