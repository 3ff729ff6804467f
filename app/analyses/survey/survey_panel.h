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
// The panel owns no job and no result: the ComputeService surveys in the background (progress
// as a percentage, Cancel) and the AnalysisSession holds the run, which a new model drops. A
// failure goes to the message bar and the previous result stays. GUI thread only.
#pragma once

#include <memory>

#include <QWidget>

#include "attnscope/base/head_id.h"
#include "session/analysis_session.h"  // HeadId as a metatype, for headActivated

class QComboBox;
class QDoubleSpinBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;
class QTabWidget;
class QToolButton;

namespace attnscope::app {

namespace corpus {
class SummaryLine;
}

class ComputeService;
class MdsScatter;
class ScoreHistograms;
class SurveySortModel;
class SurveyTableModel;

class SurveyPanel : public QWidget {
    Q_OBJECT

public:
    SurveyPanel(AnalysisSession* session, ComputeService* service, QWidget* parent = nullptr);

    QSize sizeHint() const override { return {640, 300}; }

    // Surveys `path` with the chosen options (replacing a running survey); errors go to the
    // session. The session's treebank is reused when `path` is its file.
    void startSurvey(const QString& path);
    // Surveys the treebank the session holds; reports an error when there is none.
    void surveyLoadedTreebank();
    // Surveys the file in the path field, or asks for one when it is empty.
    void surveyChosenFile();
    void cancelSurvey();

    bool isSurveying() const;
    // Opens a (non-modal) file dialog; the chosen file goes into the path field and is run.
    void askForCorpus();

    // The options as the widgets hold them, and setting them (tests, --survey).
    SurveyRequest request() const;
    void setRequest(const SurveyRequest& request);

    SurveyTableModel* tableModel() const { return m_model; }

    SurveySortModel* sortedModel() const { return m_sorted; }

    QTableView* table() const { return m_table; }

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
    void headActivated(attnscope::HeadId head);

private:
    QWidget* buildOptions();
    QHBoxLayout* buildRunOptions(QWidget* box);
    QWidget* buildResults();
    QTableView* buildTable(QWidget* parent);
    QToolButton* buildExportButton(QWidget* parent);
    void connectService();
    void refreshForModel();
    void showRun();
    void refreshFilterBox();
    void applyLabelFilter();
    void refreshMap();
    void refreshHistograms();
    void refreshSelection();
    void setBusy(bool busy);
    void activateHead(HeadId head);
    bool haveRun();  // else reports that there is nothing to export

    AnalysisSession* m_session;
    ComputeService* m_service;
    SurveyTableModel* m_model;
    SurveySortModel* m_sorted;
    QLineEdit* m_path = nullptr;
    QPushButton* m_browse = nullptr;
    QPushButton* m_compute = nullptr;
    QPushButton* m_treebank = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    QSpinBox* m_sentences = nullptr;
    QDoubleSpinBox* m_sinkEps = nullptr;
    QSpinBox* m_probeRepeats = nullptr;
    QSpinBox* m_probeLength = nullptr;
    QSpinBox* m_probeSeed = nullptr;
    QSpinBox* m_rareTop = nullptr;
    QToolButton* m_export = nullptr;
    corpus::SummaryLine* m_summary = nullptr;
    QComboBox* m_filter = nullptr;
    QComboBox* m_colouring = nullptr;
    QTableView* m_table = nullptr;
    QTabWidget* m_charts = nullptr;
    MdsScatter* m_scatter = nullptr;
    ScoreHistograms* m_histograms = nullptr;
    bool m_syncingTable = false;   // the table follows the session's head without re-selecting
    analysis::LabelRules m_rules;  // kept from setRequest: the panel has no form for them
};

}  // namespace attnscope::app
