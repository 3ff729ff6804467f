#include "analyses/corpus/one_stack_docks.h"

#include <QDockWidget>
#include <QMainWindow>

#include "session/analysis_session.h"

namespace attnscope::app {

namespace {

constexpr const char* kNames[] = {"dependencyDock", "corefDock", "importanceDock", "surveyDock"};
// Set on a dock this guard closed: it reopens when a one-stack model comes back.
constexpr const char* kClosedHere = "attnscopeClosedForEncoderDecoder";

void reopen(QDockWidget* dock) {
    if (dock->property(kClosedHere).toBool()) {
        dock->setProperty(kClosedHere, false);
        dock->show();
    }
}

}  // namespace

void guardOneStackDocks(QMainWindow* window, AnalysisSession* session) {
    for (const char* name : kNames) {
        auto* dock = window->findChild<QDockWidget*>(QLatin1String(name));
        if (dock == nullptr || dock->widget() == nullptr) {
            continue;
        }
        const QString title = dock->windowTitle();
        const auto apply = [dock, session, title] {
            const QString why = session->unsupportedReason();
            // A disabled parent keeps every button off whatever the panel's busy state says.
            dock->widget()->setEnabled(why.isEmpty());
            dock->widget()->setToolTip(why);
            dock->setWindowTitle(
                why.isEmpty() ? title
                              : QObject::tr("%1 (not for encoder-decoder models)").arg(title));
            if (why.isEmpty()) {
                reopen(dock);
            } else if (!dock->isHidden()) {
                dock->setProperty(kClosedHere, true);
                dock->hide();
            }
        };
        QObject::connect(session, &AnalysisSession::modelChanged, dock, apply);
        apply();
    }
}

void reopenGuardedDocks(QMainWindow* window) {
    for (const char* name : kNames) {
        if (auto* dock = window->findChild<QDockWidget*>(QLatin1String(name))) {
            reopen(dock);
        }
    }
}

}  // namespace attnscope::app
