#include "analyses/survey/survey_dock.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>

#include "analyses/corpus/corpus_dock.h"
#include "analyses/registry.h"
#include "analyses/survey/survey_panel.h"
#include "session/analysis_session.h"

namespace attnscope::app {

namespace {

void addDocks(const AnalysisHost& host) {
    AnalysisSession* session = host.session;
    auto* panel = new SurveyPanel(session, host.service, host.window);
    QDockWidget* dock =
        corpus::addDock(host, panel, QObject::tr("Survey"), QStringLiteral("surveyDock"));
    QObject::connect(panel, &SurveyPanel::surveyShown, dock, [dock] { corpus::raiseDock(dock); });
    QObject::connect(panel, &SurveyPanel::headActivated, host.window, host.showHeadView);
    // Closing the dock ends its label filter: half the grid stayed faded with the box that set
    // it gone (issue 30). The view action unticks only on a close, not when another dock's tab
    // is raised over this one.
    QObject::connect(dock->toggleViewAction(), &QAction::toggled, session, [session](bool on) {
        if (!on) {
            session->setLabelFilter({});
        }
    });
}

void addFileEntries(const AnalysisHost& host, QMenu* file) {
    AnalysisSession* session = host.session;
    auto* dock = host.window->findChild<QDockWidget*>(QStringLiteral("surveyDock"));
    auto* panel = host.window->findChild<SurveyPanel*>();
    corpus::addDockAction(
        file, QObject::tr("&Survey heads…"), QStringLiteral("surveyAction"),
        QObject::tr("What each head does: score and label every head on a sentence file"), dock,
        [panel] { panel->askForCorpus(); });
    QAction* treebank = corpus::addDockAction(
        file, QObject::tr("Survey the loaded &treebank"), QStringLiteral("surveyTreebankAction"),
        QObject::tr("Score and label every head on the open treebank, with each head's best "
                    "dependency relation"),
        dock, [panel] { panel->surveyLoadedTreebank(); });
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
    if (auto* panel = window->findChild<SurveyPanel*>(QStringLiteral("surveyPanel"))) {
        corpus::runWhenModelOpen(session, service, panel,
                                 [panel, path] { panel->startSurvey(path); });
    }
}

}  // namespace attnscope::app
