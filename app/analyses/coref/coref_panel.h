// The "Coreference" dock (issue 16): scores every head of the open model on the coreference of a
// CorefUD treebank (Clark et al. 2019 §4.3; rules in analysis/coref_scoring.h) and shows
//  * the accuracy of every head as a layers × heads heatmap for the chosen mention group (all,
//    pronouns, proper nouns, other nominals); hover for the counts, click to open the head;
//  * a table per group: scored mentions, the best head and its accuracy, the three baselines;
//    and the corpus counts in one line;
//  * a window chooser that puts a window's text into the sentence field, so the head view shows
//    that window with its gold mention → antecedent arcs;
//  * Export… to CSV or HDF5 (in the background).
//
// The panel is a CorpusPanel (corpus/corpus_panel.h): the ComputeService scores in the
// background (progress in windows, Cancel) and the session holds the corpus and the scores.
#pragma once

#include <memory>

#include "analyses/corpus/corpus_panel.h"
#include "attnscope/analysis/coref_scoring.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;

namespace attnscope::app {

class CorefTableModel;
struct CorefScores;

class CorefPanel : public CorpusPanel {
    Q_OBJECT

public:
    CorefPanel(AnalysisSession* session, ComputeService* service, QWidget* parent = nullptr);

    QSize sizeHint() const override { return {480, 170}; }

    // Scores `path` with the chosen window limit (CorpusPanel::start).
    void startScoring(const QString& path) { start(path); }

    bool isScoring() const { return isRunning(); }

    // The window limit in tokens; 0 stands for the model's maximum.
    void setWindowLimit(int tokens);

    CorefTableModel* tableModel() const { return m_model; }

    QComboBox* windowChooser() const { return m_windows; }

    // The corpus counts line under the table.
    QString countsText() const;

    std::shared_ptr<const analysis::CorefAccumulator> results() const;

    analysis::MentionGroup currentGroup() const;
    void selectGroup(analysis::MentionGroup group);

    // Puts window `index`'s text into the session (the sentence field follows).
    void chooseWindow(int index);

    // Written in the background (ComputeService::exportFile; it reports the end). False when
    // there is nothing to export.
    bool exportCsv(const QString& path);
    bool exportResults(const QString& path);

signals:
    void scoringFinished(bool ok);          // ok false: failed, cancelled or replaced
    void corefScored(const QString& path);  // after scores of `path` were shown
    void windowChosen(int index);

protected:
    void launch(const QString& path) override;

    void runEnded(bool ok) override { emit scoringFinished(ok); }

    bool hasResults() const override { return scores() != nullptr; }

    void setBusy(bool busy) override;
    QString heatmapTooltip(int row, int col) const override;

private:
    QWidget* buildOptions();
    QWidget* buildResults();
    QWidget* buildTableSide(QWidget* parent);
    QWidget* buildHeatmapSide(QWidget* parent);
    std::shared_ptr<const CorefScores> scores() const;
    void showScores();
    void refreshSummary();
    void refreshWindows();
    void refreshHeatmap();
    void askForExport();

    CorefTableModel* m_model;
    QSpinBox* m_limit = nullptr;
    QLabel* m_summary = nullptr;
    QLabel* m_counts = nullptr;
    QComboBox* m_windows = nullptr;
    QComboBox* m_group = nullptr;
};

}  // namespace attnscope::app
