#include "analyses/corpus/corpus_widgets.h"

#include <QFileDialog>
#include <QHeaderView>
#include <QMenu>
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

}  // namespace attnscope::app::corpus
