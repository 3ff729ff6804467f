// The "Survey" dock (issue 18): what each head does over a corpus. Runs the head survey (scores
// S1–S12, labels L1–L10) on a sentence file or treebank — or on the treebank the session holds —
// and shows
//  * a summary line (surveySummary) and a label filter ("All heads", "induct (3)", "pos (5)", …)
//    that sets the session's label filter, keeps only those heads in the table and highlights
//    them on the map;
//  * a sortable table of every score per head, with the labels and, for a treebank, the best
//    dependency relation (models/survey_table_model.h; undefined values "–", sorted last);
//  * the MDS map of the heads' distances (views/mds_scatter.h), coloured by layer or label;
//  * histograms of the headline scores (views/score_histograms.h);
//  * Export: CSV and HDF5 (labels and best relations included) and both figures.
// Clicking a row or a point selects that head and asks for the head view (headActivated); the
// selected head is ringed on the map and accented in the histograms.
//
// The panel is a CorpusPanel (corpus/corpus_panel.h): the ComputeService surveys in the
// background (progress as a percentage, Cancel) and the session holds the run.
#pragma once

#include <array>

#include "analyses/corpus/corpus_panel.h"
#include "analyses/survey/survey_document.h"

class QComboBox;
class QDoubleSpinBox;
class QHBoxLayout;
class QSpinBox;
class QTableView;
class QToolButton;

namespace attnscope::app {

namespace corpus {
class SummaryLine;
}

class MdsScatter;
class ScoreHistograms;
class SurveySortModel;
class SurveyTableModel;

class SurveyPanel : public CorpusPanel {
    Q_OBJECT

public:
    SurveyPanel(AnalysisSession* session, ComputeService* service, QWidget* parent = nullptr);

    QSize sizeHint() const override { return {640, 300}; }

    // Surveys `path` with the chosen options (CorpusPanel::start). The session's treebank is
    // reused when `path` is its file.
    void startSurvey(const QString& path) { start(path); }

    // Surveys the treebank the session holds; reports an error when there is none.
    void surveyLoadedTreebank();

    bool isSurveying() const { return isRunning(); }

    // The options as the widgets hold them, and setting them (tests, --survey).
    SurveyRequest request() const;
    void setRequest(const SurveyRequest& request);

    SurveyTableModel* tableModel() const { return m_model; }

    SurveySortModel* sortedModel() const { return m_sorted; }

    MdsScatter* scatter() const { return m_scatter; }

    ScoreHistograms* histograms() const { return m_histograms; }

    QComboBox* labelFilterBox() const { return m_filter; }

    QString summaryText() const;

    // Written in the background (ComputeService::exportFile, which reports the end); the
    // figures at once. False, with the reason in the message bar, when there is nothing to
    // export or a figure cannot be written.
    bool exportCsv(const QString& path);
    bool exportResults(const QString& path);  // HDF5
    bool exportMapFigure(const QString& path);
    bool exportHistogramsFigure(const QString& path);

signals:
    void surveyFinished(bool ok);  // ok false: failed, cancelled or replaced
    void surveyShown(const QString& path);

protected:
    void launch(const QString& path) override;

    void runEnded(bool ok) override { emit surveyFinished(ok); }

    bool hasResults() const override { return run() != nullptr; }

    void setBusy(bool busy) override;
    std::optional<HeadId> headOfRow(int row) const override;

private:
    QWidget* buildOptions();
    QHBoxLayout* buildRunOptions(QWidget* box);
    QWidget* buildResults();
    QWidget* buildCharts(QWidget* parent);  // the map and the histograms, in tabs
    QTableView* buildTable(QWidget* parent);
    QToolButton* buildExportButton(QWidget* parent);
    std::shared_ptr<const SurveyRun> run() const;
    void refreshForModel();
    void showRun();
    void refreshFilterBox();
    void applyLabelFilter();
    void refreshMap();
    void refreshHistograms();
    void refreshSelection();
    void activateSurveyed(HeadId head);  // a head of the run

    SurveyTableModel* m_model;
    SurveySortModel* m_sorted;
    QPushButton* m_treebank = nullptr;
    QSpinBox* m_sentences = nullptr;
    QDoubleSpinBox* m_sinkEps = nullptr;
    // The induction probe's repeats, length and seed: a causal model's only.
    std::array<QSpinBox*, 3> m_probe{};
    QSpinBox* m_rareTop = nullptr;
    corpus::SummaryLine* m_summary = nullptr;
    analysis::LabelRules m_rules;  // kept from setRequest: the panel has no form for them
    QComboBox* m_filter = nullptr;
    MdsScatter* m_scatter = nullptr;
    ScoreHistograms* m_histograms = nullptr;
};

}  // namespace attnscope::app
