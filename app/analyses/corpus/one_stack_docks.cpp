#include "analyses/corpus/one_stack_docks.h"

#include <QDockWidget>
#include <QMainWindow>

#include "session/analysis_session.h"

namespace attnscope::app {

namespace {

// Set on every guarded dock, so that reopenGuardedDocks finds them without a list of names.
constexpr const char* kGuarded = "attnscopeOneStackOnly";
// Set on a dock this guard closed: it reopens when a one-stack model comes back.
constexpr const char* kClosedHere = "attnscopeClosedForEncoderDecoder";

void reopen(QDockWidget* dock) {
    if (dock->property(kClosedHere).toBool()) {
        dock->setProperty(kClosedHere, false);
        dock->show();
    }
}

}  // namespace

void guardOneStackDock(QDockWidget* dock, AnalysisSession* session) {
    dock->setProperty(kGuarded, true);
    const QString title = dock->windowTitle();
    const auto apply = [dock, session, title] {
        const QString why = session->unsupportedReason();
        // A disabled parent keeps every button off whatever the panel's busy state says.
        dock->widget()->setEnabled(why.isEmpty());
        dock->widget()->setToolTip(why);
        dock->setWindowTitle(
            why.isEmpty() ? title : QObject::tr("%1 (not for encoder-decoder models)").arg(title));
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

void reopenGuardedDocks(QMainWindow* window) {
    for (QDockWidget* dock : window->findChildren<QDockWidget*>()) {
        if (dock->property(kGuarded).toBool()) {
            reopen(dock);
        }
    }
}

}  // namespace attnscope::app
