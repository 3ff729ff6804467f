#include "analyses/survey/survey_dock.h"

#include <QAction>

#include "analyses/survey/survey_panel.h"
#include "session/analysis_session.h"

namespace attnscope::app {

namespace {

void addDocks(const AnalysisHost& host) {
    AnalysisSession* session = host.session;
    QDockWidget* dock =
        corpus::addPanelDock<SurveyPanel>(host, QObject::tr("Survey"), QStringLiteral("surveyDock"),
                                          &SurveyPanel::surveyShown)
            .dock;
    // Closing the dock ends its label filter: half the grid stayed faded with the box that set
    // it gone (issue 30). The view action unticks only on a close, not when another dock's tab
    // is raised over this one.
    QObject::connect(dock->toggleViewAction(), &QAction::toggled, session, [session](bool on) {
        if (!on) {
            session->overlays().setLabelFilter({});
        }
    });
}

void addFileEntries(const AnalysisHost& host, QMenu* file) {
    corpus::addPanelAction(
        host, file, QStringLiteral("surveyDock"), QObject::tr("&Survey heads…"),
        QStringLiteral("surveyAction"),
        QObject::tr("What each head does: score and label every head on a sentence file"));
    auto* dock = host.window->findChild<QDockWidget*>(QStringLiteral("surveyDock"));
    auto* panel = dock->findChild<SurveyPanel*>();
    QAction* treebank = corpus::addDockAction(
        file, QObject::tr("Survey the loaded &treebank"), QStringLiteral("surveyTreebankAction"),
        QObject::tr("Score and label every head on the open treebank, with each head's best "
                    "dependency relation"),
        dock, [panel] { panel->surveyLoadedTreebank(); });
    AnalysisSession* session = host.session;
    treebank->setEnabled(session->treebank() != nullptr);
    QObject::connect(session, &AnalysisSession::treebankChanged, treebank,
                     [session, treebank] { treebank->setEnabled(session->treebank() != nullptr); });
}

}  // namespace

Analysis surveyAnalysis() {
    return {"survey", addDocks, addFileEntries};
}

void surveyWhenOpen(QMainWindow* window, AnalysisSession* session, ComputeService* service,
                    const QString& path) {
    corpus::startWhenModelOpen(window, QStringLiteral("surveyPanel"), session, service, path);
}

}  // namespace attnscope::app
