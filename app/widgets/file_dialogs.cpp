#include "widgets/file_dialogs.h"

#include <QFileDialog>

namespace attnscope::app {

void askForSaveFile(QWidget* parent, const QString& title, const QString& filter,
                    const std::function<bool(const QString&)>& write) {
    auto* dialog = new QFileDialog(parent, title, QString(), filter);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    QObject::connect(dialog, &QFileDialog::fileSelected, parent,
                     [write](const QString& p) { write(p); });
    dialog->open();
}

}  // namespace attnscope::app
