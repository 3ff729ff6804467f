// The "Dependencies" dock: scores every head of the open model against the gold trees of a
// CoNLL-U treebank (Clark et al. 2019, methods.md §1) and shows the relation table, the
// accuracy of every head for the chosen relation as a layers × heads heatmap, and exports both.
//
// The panel is a CorpusPanel (corpus/corpus_panel.h): the ComputeService scores in the
// background (progress in sentences, Cancel) and the session holds the treebank and the scores,
// which a new model drops (so the table never shows another model's heads). Changing the
// aggregation or the subtype choice rescores the same treebank; the minimum count only regroups
// the table. The heatmap's colours span the accuracies shown (the colour bar states the range),
// or 0–1 when "Fixed 0–1" is on. Clicking a heatmap cell or double-clicking a table row selects
// that head and emits headActivated. GUI thread only.
#pragma once

#include <memory>
#include <string>

#include "analyses/corpus/corpus_panel.h"
#include "attnscope/analysis/dependency_accumulator.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace attnscope::app {

class DependencyTableModel;
struct DependencyScores;

class DependencyPanel : public CorpusPanel {
    Q_OBJECT

public:
    DependencyPanel(AnalysisSession* session, ComputeService* service, QWidget* parent = nullptr);

    // Tabbed with the sentence list, which sets the dock area's first height.
    QSize sizeHint() const override { return {480, 170}; }

    // Scores `path` with the chosen aggregation and subtypes (CorpusPanel::start).
    void startScoring(const QString& path) { start(path); }

    void cancelScoring() { cancelRun(); }

    bool isScoring() const { return isRunning(); }

    DependencyTableModel* tableModel() const { return m_model; }

    std::shared_ptr<const analysis::DependencyAccumulator> results() const;

    // The relation the heatmap shows; empty before any results.
    std::string currentRelation() const { return m_relation; }

    void selectRelation(const std::string& relation);

    // The table is written in the background (ComputeService::exportFile; it reports the end);
    // the figure here. Errors go to the session. True when the export started (table) or the
    // file was written (figure).
    bool exportTableCsv(const QString& path);
    bool exportHeatmap(const QString& path);

signals:
    void scoringFinished(bool ok);             // ok false: failed, cancelled or replaced
    void treebankScored(const QString& path);  // after scores of `path` were shown

protected:
    void launch(const QString& path) override;

    void runEnded(bool ok) override { emit scoringFinished(ok); }

    bool hasResults() const override { return scores() != nullptr; }

    void setBusy(bool busy) override;
    QString heatmapTooltip(int row, int col) const override;

private:
    QWidget* buildOptions();
    QWidget* buildResults();
    QWidget* buildHeatmapSide(QWidget* parent);
    std::shared_ptr<const DependencyScores> scores() const;
    void showScores();
    void rescore();
    void refreshTable();
    void refreshSummary();
    void refreshHeatmap();
    analysis::ScoreOptions chosenOptions() const;
    analysis::Direction chosenDirection() const;

    DependencyTableModel* m_model;
    std::string m_relation;
    QComboBox* m_from = nullptr;
    QCheckBox* m_subtypes = nullptr;
    QSpinBox* m_minCount = nullptr;
    QLabel* m_summary = nullptr;
    QComboBox* m_direction = nullptr;
    QPushButton* m_exportImage = nullptr;
};

}  // namespace attnscope::app
