#include "session/default_model.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace attnscope::app {

namespace {

// The installed copy first: a build directory's binary may also be installed elsewhere.
QString shippedModelDir(const QString& name) {
    const QStringList candidates = {
        QDir(QCoreApplication::applicationDirPath())
            .absoluteFilePath(QStringLiteral("../share/attnscope/") + name),
        QDir(QStringLiteral(ATTNSCOPE_SOURCE_RESOURCES)).filePath(name),
    };
    for (const QString& dir : candidates) {
        if (QFileInfo(QDir(dir).filePath(QStringLiteral("config.json"))).isFile()) {
            return QDir::cleanPath(dir);
        }
    }
    return {};
}

}  // namespace

QString defaultModelDir() {
    return shippedModelDir(QStringLiteral("default_model"));
}

QString circuitsModelDir() {
    return shippedModelDir(QStringLiteral("circuits_model"));
}

}  // namespace attnscope::app
