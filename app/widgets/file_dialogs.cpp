#include "widgets/file_dialogs.h"

#include <QFileDialog>
#include <QFileInfo>

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

void askForModelPath(QWidget* parent, const QString& title,
                     const std::function<void(const QString&)>& chosen, const QString& objectName) {
    auto* dialog = new QFileDialog(parent, title);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setObjectName(objectName);
    dialog->setFileMode(QFileDialog::ExistingFile);
    dialog->setNameFilters({QObject::tr("Models: a .gguf file, or a model folder's config.json "
                                        "(*.gguf config.json)"),
                            QObject::tr("All files (*)")});
    QObject::connect(dialog, &QFileDialog::fileSelected, parent, [chosen](const QString& path) {
        const QFileInfo file(path);
        chosen(file.fileName() == QLatin1String("config.json") ? file.absolutePath() : path);
    });
    dialog->open();
}

}  // namespace attnscope::app
