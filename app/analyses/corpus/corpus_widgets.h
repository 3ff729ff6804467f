// The widgets every corpus panel (dependencies, coreference, importance, survey) builds the same
// way: its file dialog, its results table, its Export menu, its one-line summary, and the
// progress bar that follows its job on the ComputeService. GUI thread only.
#pragma once

#include <algorithm>
#include <functional>
#include <vector>

#include <QLabel>
#include <QProgressBar>
#include <QString>

class QAbstractItemModel;
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

// One entry of a panel's Export menu: the menu text, then the save dialog's title and filter,
// and what writes the chosen path (false: nothing written, the reason already told).
struct ExportChoice {
    QString text;
    QString title;
    QString filter;
    std::function<bool(const QString&)> write;
};

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

// Follows one kind of job of `service` on `bar`: busy with `texts.reading` when it starts, its
// count once known, and at its end `setBusy(false)` and `finished(ok)`. The signals are the
// service's started(path), progress(done, total) and finished(ok) of that kind.
template <class Service, class Started, class Progress, class Finished>
void followJob(Service* service, QWidget* panel, QProgressBar* bar, Started started,
               Progress progress, Finished finishedSignal, ProgressTexts texts,
               std::function<void(bool)> setBusy, std::function<void(bool)> finished) {
    QObject::connect(service, started, panel, [bar, texts, setBusy] {
        bar->setMaximum(0);  // busy until the input is read
        bar->setFormat(texts.reading);
        setBusy(true);
    });
    QObject::connect(service, progress, panel, [bar, texts](int done, int total) {
        bar->setMaximum(std::max(total, 0));
        bar->setValue(done);
        bar->setFormat(total > 0 ? texts.counting : texts.reading);
    });
    QObject::connect(service, finishedSignal, panel, [setBusy, finished](bool ok) {
        setBusy(false);
        finished(ok);
    });
}

}  // namespace attnscope::app::corpus
