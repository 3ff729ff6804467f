// The "Activation patching" tab (issue 34): which activations carry the difference between the
// session's sentence (the clean prompt) and a corrupted prompt of the same token count, typed in
// the tab (filled from the clean one, "Copy from clean" again; the token counts are checked as
// it is typed). The metric is the logit difference target − distractor at the prediction
// position: the tokens picked in Predictions, or typed here, else attnscope-cli patch's defaults
// (patch_tokens.h). A sweep — each head, each head at each position, the residual stream, the
// attention or the MLP output of each layer at each position; denoising or noising — runs on
// PatchingJob with progress and Cancel, and shows the normalised metric as a heatmap in a
// diverging map centred on 0 (hover: metric and raw LD; a head's cell opens it in the Head view),
// every patched run in a table sorted largest |metric| first, and the clean and corrupted LD.
// Below the table, path patching (PatchingPathBox). Export: the CSV or HDF5 of attnscope-cli
// patch --out and the heatmap as a PNG, SVG or PDF figure. GUI thread only.
#pragma once

#include <memory>
#include <optional>

#include "analyses/patching/patching_job.h"
#include "attnscope/base/head_id.h"
#include "session/meta_types.h"
#include "widgets/placeholder_view.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;

namespace attnscope::app {

class AnalysisSession;
class ComputeService;
class HeatmapWidget;
class PatchingPathBox;
class PatchingTableModel;

class PatchingView : public PlaceholderView {
    Q_OBJECT

public:
    PatchingView(AnalysisSession* session, ComputeService* service, QWidget* parent = nullptr);

    // hasResult(): false while the placeholder (no model or sentence, encoder-decoder) is shown
    // instead of the prompts; a sweep's result is shownSweep().

    // The corrupted prompt's field and the line under it (token counts, or why nothing runs).
    QLineEdit* corruptedField() const { return m_corrupted; }

    QLabel* checkLine() const { return m_check; }

    QLineEdit* targetField() const { return m_target; }

    QLineEdit* distractorField() const { return m_distractor; }

    void setSweepKind(analysis::PatchSweep sweep);
    void setDirection(analysis::PatchDirection direction);

    // Starts the chosen sweep; false, with the reason on the check line, when the prompts or
    // tokens cannot be patched.
    bool runSweep();
    void cancel();

    // The sweep shown; null before the first.
    std::shared_ptr<const PatchingDocument::Sweep> shownSweep() const { return m_shown; }

    // The position a head-position sweep's heatmap shows.
    int shownPosition() const;
    void showPosition(int position);

    HeatmapWidget* heatmap() const { return m_heatmap; }

    QTableView* table() const { return m_table; }

    PatchingTableModel* tableModel() const { return m_model; }

    QLabel* caption() const { return m_caption; }

    PatchingPathBox* pathBox() const { return m_pathBox; }

    // The clean prompt, the typed corrupted one and the tokens: what a run would be asked, or
    // nullopt with the reason in `why`.
    std::optional<PatchingRequest> request(QString* why) const;

    // The shown sweep with the paths of the same endpoints (CSV or HDF5 by the extension), or
    // its heatmap (PNG, SVG or PDF); false, with the reason on the message bar, when there is
    // none or the file failed.
    bool exportRun(const QString& path);
    bool exportFigure(const QString& path);

signals:
    void headActivated(attnscope::HeadId head);

private:
    QWidget* makePrompts();
    QWidget* makeOptions();
    QWidget* makeResults();
    void refresh();
    void updateCheck();
    void followPicks();
    void setBusy(bool busy);
    void showSweep(std::shared_ptr<const PatchingDocument::Sweep> sweep);
    void drawMap();
    void fitTable();
    void updateCaption();
    QString heatmapTooltip(int layer, int column) const;
    void cellClicked(int layer, int column);
    std::optional<PatchingRequest> checkedRequest();
    bool canExport() const;

    AnalysisSession* m_session;
    PatchingDocument& m_document;
    PatchingJob& m_job;
    PathPatchingJob& m_pathJob;
    QLineEdit* m_corrupted;
    QLabel* m_check;
    QLineEdit* m_target;
    QLineEdit* m_distractor;
    QComboBox* m_sweepKind;
    QComboBox* m_direction;
    QPushButton* m_run;
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    QWidget* m_export;
    QLabel* m_caption;
    QWidget* m_positionRow;
    QComboBox* m_position;
    HeatmapWidget* m_heatmap;
    PatchingTableModel* m_model;
    QSortFilterProxyModel* m_sorted;
    QTableView* m_table;
    QSplitter* m_split = nullptr;
    PatchingPathBox* m_pathBox = nullptr;
    bool m_busy = false;
    bool m_tableFitted = false;
    bool m_requestOk = false;
    std::shared_ptr<const PatchingDocument::Sweep> m_shown;
};

}  // namespace attnscope::app
