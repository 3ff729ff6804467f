#include "analyses/corpus/corpus_widgets.h"

#include <algorithm>

#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>
#include <QToolButton>

#include "widgets/file_dialogs.h"

namespace attnscope::app::corpus {

void askForOpenFile(QWidget* parent, const QString& title, const QString& startDir,
                    const QString& filter, std::function<void(const QString&)> chosen,
                    const QString& objectName, const QString& preselect) {
    auto* dialog = new QFileDialog(parent, title, startDir, filter);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (!objectName.isEmpty()) {
        dialog->setObjectName(objectName);
    }
    dialog->setFileMode(QFileDialog::ExistingFile);
    if (!preselect.isEmpty()) {
        dialog->selectFile(preselect);
    }
    QObject::connect(dialog, &QFileDialog::fileSelected, parent, std::move(chosen));
    dialog->open();
}

QTableView* newResultsTable(QWidget* parent, const QString& objectName, QAbstractItemModel* model) {
    auto* table = new QTableView(parent);
    table->setObjectName(objectName);
    table->setModel(model);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(parent->fontMetrics().height() + 4);
    return table;
}

QTableView* newSortedTable(QWidget* parent, const QString& objectName, QSortFilterProxyModel* model,
                           int column, int minimumWidth) {
    QTableView* table = newResultsTable(parent, objectName, model);
    table->setSortingEnabled(true);
    table->sortByColumn(column, Qt::AscendingOrder);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->setMinimumWidth(minimumWidth);
    return table;
}

QLabel* newNoteLabel(QWidget* parent, const QString& objectName) {
    auto* label = new QLabel(parent);
    label->setObjectName(objectName);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

QSpinBox* newSpinBox(QWidget* parent, const QString& objectName, SpinRange range,
                     const QString& toolTip) {
    auto* spin = new QSpinBox(parent);
    spin->setObjectName(objectName);
    spin->setRange(range.lo, range.hi);
    spin->setValue(range.value);
    spin->setToolTip(toolTip);
    return spin;
}

QHBoxLayout* newOptionsRow(const std::vector<LabelledField>& fields, QWidget* last) {
    auto* row = new QHBoxLayout;
    for (const auto& [label, field] : fields) {
        auto* l = new QLabel(label, field->parentWidget());
        l->setBuddy(field);
        row->addWidget(l);
        row->addWidget(field);
        row->addSpacing(6);
    }
    row->addStretch(1);
    row->addWidget(last);
    return row;
}

std::vector<ExportChoice> tableAndResultsChoices(const QString& tableTitle,
                                                 std::function<bool(const QString&)> writeCsv,
                                                 const QString& resultsTitle,
                                                 std::function<bool(const QString&)> writeHdf5) {
    return {{QObject::tr("Table as CSV…"), tableTitle, QObject::tr("CSV table (*.csv)"),
             std::move(writeCsv)},
            {QObject::tr("Results as HDF5…"), resultsTitle, QObject::tr("HDF5 file (*.h5)"),
             std::move(writeHdf5)}};
}

QToolButton* newExportButton(QWidget* parent, const QString& objectName,
                             const std::vector<ExportChoice>& choices) {
    auto* button = new QToolButton(parent);
    button->setObjectName(objectName);
    button->setText(QObject::tr("Export"));
    button->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(button);
    for (const ExportChoice& choice : choices) {
        menu->addAction(choice.text, parent, [parent, choice] {
            askForSaveFile(parent, choice.title, choice.filter, choice.write);
        });
    }
    button->setMenu(menu);
    return button;
}

SummaryLine::SummaryLine(QWidget* parent) : QLabel(parent) {
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
}

void SummaryLine::setFullText(const QString& text) {
    m_text = text;
    setToolTip(text);
    elide();
}

void SummaryLine::setPlaceholder(const QString& text) {
    m_placeholder = text;
    elide();
}

void SummaryLine::resizeEvent(QResizeEvent* event) {
    QLabel::resizeEvent(event);
    elide();
}

void SummaryLine::elide() {
    setText(fontMetrics().elidedText(m_text.isEmpty() ? m_placeholder : m_text, Qt::ElideRight,
                                     width()));
}

void followJob(CorpusJob& job, QWidget* panel, QProgressBar* bar, ProgressTexts texts,
               std::function<void(bool)> setBusy, std::function<void(bool)> finished) {
    QObject::connect(&job, &CorpusJob::started, panel, [bar, texts, setBusy] {
        bar->setMaximum(0);  // busy until the input is read
        bar->setFormat(texts.reading);
        setBusy(true);
    });
    QObject::connect(&job, &CorpusJob::progress, panel, [bar, texts](int done, int total) {
        bar->setMaximum(std::max(total, 0));
        bar->setValue(done);
        bar->setFormat(total > 0 ? texts.counting : texts.reading);
    });
    QObject::connect(&job, &CorpusJob::finished, panel, [setBusy, finished](bool ok) {
        setBusy(false);
        finished(ok);
    });
}

}  // namespace attnscope::app::corpus
