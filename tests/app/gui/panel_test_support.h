// What the corpus-panel tests (importance, survey) share: a test application's settings kept
// apart from the user's, and a real main window on a checkpoint, laid out as at first start.
#pragma once

#include <memory>

#include <QCoreApplication>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QString>

#include "main_window.h"
#include "service/compute_service.h"

namespace attnscope::app::paneltest {

inline void usePanelTestSettings(const QString& applicationName) {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("AttnScopeTest"));
    QCoreApplication::setApplicationName(applicationName);
}

// Opens `path` in `window` and waits for it; false when it did not load within 30 s.
inline bool openModelIn(MainWindow& window, const QString& path) {
    QSignalSpy loaded(window.service(), &ComputeService::loadFinished);
    window.openModel(path);
    return loaded.wait(30000) && loaded.takeFirst().at(0).toBool();
}

// A shown 1400 x 900 window with the first-run layout (no dock state saved by an earlier case)
// and `path` open; null when the model did not load.
inline std::unique_ptr<MainWindow> windowWithModel(const QString& path) {
    QSettings().clear();
    auto window = std::make_unique<MainWindow>();
    window->resize(1400, 900);
    window->show();
    return openModelIn(*window, path) ? std::move(window) : nullptr;
}

}  // namespace attnscope::app::paneltest
