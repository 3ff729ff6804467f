#include "panels/one_stack_docks.h"

#include <QDockWidget>
#include <QMainWindow>

#include "session/analysis_session.h"

namespace attnscope::app {

void guardOneStackDocks(QMainWindow* window, AnalysisSession* session) {
    for (const char* name : {"dependencyDock", "corefDock", "importanceDock", "surveyDock"}) {
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
        };
        QObject::connect(session, &AnalysisSession::modelChanged, dock, apply);
        apply();
    }
}

}  // namespace attnscope::app
