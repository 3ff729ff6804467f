// What the GUI tests that drive a real main window share: a test application's settings kept
// apart from the user's, a window laid out as at first start, a model opened and a sentence
// shown in it.
#pragma once

#include <algorithm>
#include <memory>

#include <QCoreApplication>
#include <QDockWidget>
#include <QScrollArea>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QString>
#include <QTest>

#include "main_window.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"

namespace attnscope::app::paneltest {

inline void usePanelTestSettings(const QString& applicationName) {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("AttnScopeTest"));
    QCoreApplication::setApplicationName(applicationName);
}

// Opens `path` in `window` and waits for it; false when it did not load within `ms`.
inline bool openModelIn(MainWindow& window, const QString& path, int ms = 30000) {
    QSignalSpy loaded(window.service(), &ComputeService::loadFinished);
    window.openModel(path);
    return loaded.wait(ms) && loaded.takeFirst().at(0).toBool();
}

// Opens `path` and shows `text`, each within 20 s; the session, or null when either failed.
inline AnalysisSession* openWithText(MainWindow& window, const QString& path, const QString& text) {
    if (!openModelIn(window, path, 20000)) {
        return nullptr;
    }
    AnalysisSession* s = window.session();
    s->setText(text);
    const bool shown = QTest::qWaitFor(
        [&] { return s->result() && s->result()->text == text.toStdString(); }, 20000);
    return shown ? s : nullptr;
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

// A corpus panel in its bottom dock at a small window (issue 30): the dock opens at a quarter of
// the window so that the head map keeps about half, where the panel scrolls at its minimum
// height, never laid out taller than that (a wrapped summary's height-for-width did); once the
// dock is 300 px tall the panel shows whole. Empty when all holds, else what did not.
inline QString dockedPanelFitProblem(MainWindow& window, QDockWidget* dock, const QWidget* panel) {
    auto* scroll = qobject_cast<QScrollArea*>(dock->widget());
    if (!scroll) {
        return QStringLiteral("the dock holds no scroll area");
    }
    const auto problem = [&] {
        return QStringLiteral("panel %1 px in a viewport of %2 px")
            .arg(panel->height())
            .arg(scroll->viewport()->height());
    };
    if (panel->height() >
        std::max(scroll->viewport()->height(), panel->minimumSizeHint().height())) {
        return problem();
    }
    window.resizeDocks({dock}, {300}, Qt::Vertical);
    QTest::qWait(50);
    return panel->height() <= scroll->viewport()->height() ? QString() : problem();
}

}  // namespace attnscope::app::paneltest
