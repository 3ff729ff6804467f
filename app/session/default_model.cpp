#include "session/default_model.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace attnscope::app {

QString defaultModelDir() {
    const QStringList candidates = {
        QDir(QCoreApplication::applicationDirPath())
            .absoluteFilePath(QStringLiteral("../share/attnscope/default_model")),
        QStringLiteral(ATTNSCOPE_SOURCE_DEFAULT_MODEL),
    };
    for (const QString& dir : candidates) {
        if (QFileInfo(QDir(dir).filePath(QStringLiteral("config.json"))).isFile()) {
            return QDir::cleanPath(dir);
        }
    }
    return {};
}

}  // namespace attnscope::app
