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
// The panel owns no job and no results: the ComputeService scores in the background (progress in
// windows, Cancel) and the AnalysisSession holds the corpus and the scores, which a new model
// drops. A failure is reported through the session and the previous results stay.
// GUI thread only.
#pragma once

#include <memory>

#include <QWidget>

#include "attnscope/analysis/coref_scoring.h"
#include "attnscope/base/head_id.h"
#include "render/heatmap_image.h"
#include "session/analysis_session.h"  // HeadId as a metatype, for headActivated

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;

namespace attnscope::app {

class ComputeService;
class CorefTableModel;
class HeatmapWidget;

class CorefPanel : public QWidget {
    Q_OBJECT

public:
    CorefPanel(AnalysisSession* session, ComputeService* service, QWidget* parent = nullptr);

    QSize sizeHint() const override { return {480, 170}; }

    // Scores `path` with the session's model and the chosen window limit (replacing a running
    // coreference job); errors go to the session.
    void startScoring(const QString& path);
    // Scores the file in the path field, or asks for one when it is empty.
    void scoreChosenFile();
    void cancelScoring();

    bool isScoring() const;
    // Opens a (non-modal) file dialog; the chosen file goes into the path field and is scored.
    void askForTreebank();

    // The window limit in tokens; 0 stands for the model's maximum.
    void setWindowLimit(int tokens);

    CorefTableModel* tableModel() const { return m_model; }

    HeatmapWidget* heatmap() const { return m_heatmap; }

    QComboBox* windowChooser() const { return m_windows; }

    // The corpus counts line under the table.
    QString countsText() const;

    std::shared_ptr<const analysis::CorefAccumulator> results() const;

    analysis::MentionGroup currentGroup() const;
    void selectGroup(analysis::MentionGroup group);

    // Puts window `index`'s text into the session (the sentence field follows).
    void chooseWindow(int index);

    const render::ColorRange& heatmapRange() const { return m_range; }

    // Written in the background (ComputeService::exportFile; it reports the end). False when
    // there is nothing to export.
    bool exportCsv(const QString& path);
    bool exportResults(const QString& path);

signals:
    void scoringFinished(bool ok);          // ok false: failed, cancelled or replaced
    void corefScored(const QString& path);  // after scores of `path` were shown
    void headActivated(attnscope::HeadId head);
    void windowChosen(int index);

private:
    QWidget* buildOptions();
    QWidget* buildResults();
    QWidget* buildTableSide(QWidget* parent);
    QWidget* buildHeatmapSide(QWidget* parent);
    void connectService();
    void showScores();
    void setBusy(bool busy);
    void refreshSummary();
    void refreshWindows();
    void refreshHeatmap();
    void askForExport();
    QString heatmapTooltip(int row, int col) const;

    AnalysisSession* m_session;
    ComputeService* m_service;
    CorefTableModel* m_model;
    QLineEdit* m_path = nullptr;
    QPushButton* m_browse = nullptr;
    QSpinBox* m_limit = nullptr;
    QPushButton* m_score = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    QLabel* m_summary = nullptr;
    QTableView* m_table = nullptr;
    QLabel* m_counts = nullptr;
    QComboBox* m_windows = nullptr;
    QPushButton* m_export = nullptr;
    QComboBox* m_group = nullptr;
    QCheckBox* m_fixedRange = nullptr;
    render::ColorRange m_range;
    HeatmapWidget* m_heatmap = nullptr;
};

}  // namespace attnscope::app
