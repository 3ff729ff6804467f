// The widgets every corpus panel (dependencies, coreference, importance, survey) builds the same
// way: its file dialog, its results table, its Export menu, its one-line summary, and the
// progress bar that follows its job on the ComputeService. GUI thread only.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

#include <QLabel>
#include <QProgressBar>
#include <QString>

#include "service/corpus_job.h"

class QAbstractItemModel;
class QHBoxLayout;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;
class QToolButton;
class QWidget;

namespace attnscope::app::corpus {

// A non-modal "open" dialog starting in `startDir` (with `preselect` chosen, when given); the
// chosen file goes to `chosen`. `objectName` names the dialog for tests.
void askForOpenFile(QWidget* parent, const QString& title, const QString& startDir,
                    const QString& filter, std::function<void(const QString&)> chosen,
                    const QString& objectName = {}, const QString& preselect = {});

// A read-only table of whole rows, one selected at a time, rows one line high, no row numbers.
QTableView* newResultsTable(QWidget* parent, const QString& objectName, QAbstractItemModel* model);

// The same, sortable, sorted by `column` at first, its columns as wide as their contents and no
// narrower than `minimumWidth`.
QTableView* newSortedTable(QWidget* parent, const QString& objectName, QSortFilterProxyModel* model,
                           int column, int minimumWidth);

// A read-only note that wraps: a summary, the corpus counts.
QLabel* newNoteLabel(QWidget* parent, const QString& objectName);

// A spin box's bounds and first value.
struct SpinRange {
    int lo;
    int hi;
    int value;
};

QSpinBox* newSpinBox(QWidget* parent, const QString& objectName, SpinRange range,
                     const QString& toolTip);

// A field of an options row, after its label (whose buddy it is).
struct LabelledField {
    QString label;
    QWidget* field;
};

// A row of options: each field after its label with a little room after it, then `last` at the
// far end.
QHBoxLayout* newOptionsRow(const std::vector<LabelledField>& fields, QWidget* last);

// The counts of a set of scores (DependencyScores, CorefScores), sharing their ownership: they
// live as long as the caller holds them. Null for null scores.
template <class Scores>
auto countsOf(const std::shared_ptr<const Scores>& scores)
    -> std::shared_ptr<const decltype(Scores::counts)> {
    if (!scores) {
        return nullptr;
    }
    return {scores, &scores->counts};
}

// One entry of a panel's Export menu: the menu text, then the save dialog's title and filter,
// and what writes the chosen path (false: nothing written, the reason already told).
struct ExportChoice {
    QString text;
    QString title;
    QString filter;
    std::function<bool(const QString&)> write;
};

// The Export menu's first two entries where a panel has both: its table as CSV and its whole
// results as HDF5, each saved under its own dialog title.
std::vector<ExportChoice> tableAndResultsChoices(const QString& tableTitle,
                                                 std::function<bool(const QString&)> writeCsv,
                                                 const QString& resultsTitle,
                                                 std::function<bool(const QString&)> writeHdf5);

// An "Export" button whose menu asks for a file name for each choice.
QToolButton* newExportButton(QWidget* parent, const QString& objectName,
                             const std::vector<ExportChoice>& choices);

// A one-line summary, elided to its width with the whole text in its tool tip: a wrapped label
// gives the panel a height-for-width, and the dock's scroll area then lays it out at its
// preferred height, taller than a short dock, instead of fitting it in.
class SummaryLine : public QLabel {
public:
    explicit SummaryLine(QWidget* parent = nullptr);

    void setFullText(const QString& text);
    // Shown (not as the tool tip) while the full text is empty.
    void setPlaceholder(const QString& text);

    QString fullText() const { return m_text; }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void elide();

    QString m_text;
    QString m_placeholder;
};

// What the progress bar says of a job: while its input is read (`reading`), then while it
// counts (`counting`, a QProgressBar format: "%v / %m windows", "surveying, %p %").
struct ProgressTexts {
    QString reading;
    QString counting;
};

// Follows a corpus analysis's job on `bar`: busy with `texts.reading` when it starts, its count
// once known, and at its end `setBusy(false)` and `finished(ok)`.
void followJob(CorpusJob& job, QWidget* panel, QProgressBar* bar, ProgressTexts texts,
               std::function<void(bool)> setBusy, std::function<void(bool)> finished);

}  // namespace attnscope::app::corpus
