// What the four corpus panels (dependencies, coreference, importance, survey) are made of alike:
// a job of their own on the ComputeService (corpus_job.h), followed by a progress bar with a
// Cancel button; a path field with Browse… and a run button (all but dependencies, whose one
// button asks for the file); an export control enabled while there are results and no job runs;
// and how a run starts: not without a model (the message bar says so and the run ends at once),
// the file shown in the path field. Each panel adds its options, its results and its signals.
//
// The panel owns no job and no results: the ComputeService runs the job in the background and
// the AnalysisSession holds the results in the analysis's document, which a new model drops. A
// failure is reported through the session and the previous results stay. GUI thread only.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <QString>
#include <QStringList>
#include <QWidget>

#include "analyses/corpus/corpus_widgets.h"
#include "attnscope/base/head_id.h"
#include "attnscope/base/tensor.h"
#include "render/heatmap_image.h"
#include "session/analysis_session.h"  // HeadId as a metatype, for headActivated

class QCheckBox;
class QHBoxLayout;
class QLineEdit;
class QPainter;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace attnscope::render {
struct FigurePage;
}

namespace attnscope::app {

class ComputeService;
class CorpusJob;
class HeatmapWidget;

class CorpusPanel : public QWidget {
    Q_OBJECT

public:
    // Runs the job on `path` with the session's model and the panel's options, replacing a
    // running one of its kind; errors go to the session.
    void start(const QString& path);
    // Runs the file in the path field, or asks for one when the field is empty.
    void runChosenFile();
    // Opens a (non-modal) file dialog; the chosen file goes into the path field and is run.
    void askForFile();
    void cancelRun();

    bool isRunning() const;

    QTableView* table() const { return m_table; }

    // The layers × heads heatmap; none in the Survey dock.
    HeatmapWidget* heatmap() const { return m_heatmap; }

    // The values its colours span (its colour bar says so).
    const render::ColorRange& heatmapRange() const { return m_range; }

    // An accuracy heatmap's colours span 0–1 instead of the accuracies shown.
    void setFixedRange(bool fixed);

signals:
    void headActivated(attnscope::HeadId head);

protected:
    // What the panel says where the others say the same of their own analysis.
    struct Texts {
        QString noModel;     // the message bar's line when a run starts without a model
        QString nothingYet;  // … and when an export finds no results
        QString dialogTitle;
        QString dialogFilter;
    };

    // `name` prefixes the object names: "coref" names the panel "corefPanel" and its controls
    // "corefPath", "corefBrowse", "corefProgress" and "corefCancel".
    CorpusPanel(AnalysisSession* session, ComputeService* service, CorpusJob& job,
                const QString& name, Texts texts, QWidget* parent);

    // The open dialog is named `dialogName` (tests) and starts on the path field's file,
    // chosen; else it is nameless and starts in that file's folder.
    void preselectInDialog(const QString& dialogName);
    // `options` above `results`, which take the height the dock has.
    void setParts(QWidget* options, QWidget* results);
    // The progress bar follows the job; its end enables the panel again and goes to runEnded.
    void followJob(const corpus::ProgressTexts& texts);
    // The treebank the session loads goes into an empty path field: the likeliest corpus.
    void offerLoadedTreebank();

    // The controls, made in the focus chain's order: the path field and Browse, the run button
    // (which runs the chosen file), then the progress bar and Cancel.
    void addPathField(QWidget* box, const QString& placeholder);
    void addRunButton(QWidget* box, const QString& text, const QString& objectName,
                      const QString& toolTip = {});
    void addProgress(QWidget* box);
    // `label`, the path field with `stretch` and Browse, at the end of `row`.
    void layOutPath(QHBoxLayout* row, const QString& label, int stretch);
    // The progress bar with `stretch` and Cancel, at the end of `row`.
    void layOutProgress(QHBoxLayout* row, int stretch);

    // The heatmap, "<name>Heatmap", with heatmapTooltip's tool tips.
    HeatmapWidget* newHeatmap(QWidget* parent);
    // `values` ([layers, columns]) in the heatmap, in `range`, its columns labelled `columns`.
    void showHeatmap(const Matrix& values, const render::ColorRange& range,
                     const QStringList& columns, const render::HeatmapStyle& style = {});
    virtual QString heatmapTooltip(int row, int col) const;
    // "Fixed 0–1" ("<name>FixedRange") over an accuracy heatmap.
    QCheckBox* addFixedRange(QWidget* parent);
    // `accuracy` in the heatmap, its colours spanning the accuracies shown or, with Fixed 0–1
    // on, 0 to 1.
    void showAccuracy(const Matrix& accuracy, const QStringList& columns);
    // Selects `head` in the session and asks for the head view (headActivated).
    void activateHead(HeadId head);

    // The results table "<name>Table" of one head (or key/value group) per row, through the
    // sorting `sorted`: sorted by `column` at first, its columns as wide as their contents. A
    // click on a row opens its head (activateHead); walking the rows with the keyboard only
    // selects their heads, without taking the head view to the front at every step.
    void addHeadTable(QWidget* parent, QSortFilterProxyModel* sorted, int column, int minimumWidth);
    // The head of the table's source row `row`; none without one (no run, no model).
    virtual std::optional<HeadId> headOfRow(int row) const;
    // Makes the table's `row` current and scrolls to it, without selecting its head again.
    void showCurrentRow(const QModelIndex& row);

    // The panel's name followed by `suffix`: an object name.
    QString childName(const char* suffix) const;

    // Starts the job on `path` with the panel's options.
    virtual void launch(const QString& path) = 0;
    // Emits the panel's finished signal (false: failed, cancelled, replaced or never started).
    virtual void runEnded(bool ok) = 0;
    virtual bool hasResults() const = 0;
    // Shows the progress bar and Cancel and disables the run controls while `busy`.
    virtual void setBusy(bool busy);

    // True when there is something to export; else the message bar says there is nothing yet.
    bool canExport() const { return canExport(hasResults()); }

    bool canExport(bool something) const;
    // Writes `path` in the background (ComputeService::exportFile, which reports the end) with
    // what `write` makes of the results, when there are some: else false, and the message bar
    // says there is nothing yet.
    using FileWrite = std::function<void(const std::string& file)>;
    bool exportInBackground(const QString& path, const std::function<FileWrite()>& write);
    // A figure written at once; false, with the reason on the message bar, when it cannot be.
    bool writeFigure(const QString& path, const render::FigurePage& page,
                     const std::function<void(QPainter&)>& paint) const;
    // `written`, and when false, "Export failed: `error`" on the message bar.
    bool exported(bool written, const QString& error) const;

    AnalysisSession* m_session;
    ComputeService* m_service;
    QLineEdit* m_path = nullptr;  // none in the Dependencies dock
    QPushButton* m_browse = nullptr;
    QPushButton* m_run = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    QWidget* m_export = nullptr;  // enabled while there are results and no job runs
    QTableView* m_table = nullptr;
    HeatmapWidget* m_heatmap = nullptr;
    render::ColorRange m_range;
    QCheckBox* m_fixedRange = nullptr;

private:
    CorpusJob& m_job;
    QString m_name;
    Texts m_texts;
    QString m_dialogName;  // empty: the dialog does not preselect
    QSortFilterProxyModel* m_sorted = nullptr;
    bool m_syncingTable = false;
};

// The panel's writer `write` as an export choice's (corpus_widgets.h).
template <class Panel>
std::function<bool(const QString&)> writer(Panel* panel, bool (Panel::*write)(const QString&)) {
    return [panel, write](const QString& path) { return (panel->*write)(path); };
}

}  // namespace attnscope::app
