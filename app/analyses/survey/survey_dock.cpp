#include "analyses/survey/survey_dock.h"

#include <memory>

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QScrollArea>
#include <QTimer>

#include "analyses/survey/survey_panel.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "settings/window_layout.h"

namespace attnscope::app {

namespace {

// File ▸ Survey heads… and Survey the loaded treebank, after the other corpus entries: the File
// menu's first group ends at its first separator.
void addMenuEntries(QMainWindow* window, AnalysisSession* session, QDockWidget* dock,
                    SurveyPanel* panel) {
    const QList<QAction*> menus = window->menuBar()->actions();
    QMenu* file = menus.isEmpty() ? nullptr : menus.front()->menu();
    if (!file) {
        return;
    }
    auto* survey = new QAction(QObject::tr("&Survey heads…"), file);
    survey->setObjectName(QStringLiteral("surveyAction"));
    survey->setToolTip(
        QObject::tr("What each head does: score and label every head on a sentence file"));
    QObject::connect(survey, &QAction::triggered, panel, [dock, panel] {
        dock->show();
        dock->raise();
        panel->askForCorpus();
    });
    auto* treebank = new QAction(QObject::tr("Survey the loaded &treebank"), file);
    treebank->setObjectName(QStringLiteral("surveyTreebankAction"));
    treebank->setToolTip(
        QObject::tr("Score and label every head on the open treebank, with "
                    "each head's best dependency relation"));
    treebank->setEnabled(session->treebank() != nullptr);
    QObject::connect(session, &AnalysisSession::treebankChanged, treebank,
                     [session, treebank] { treebank->setEnabled(session->treebank() != nullptr); });
    QObject::connect(treebank, &QAction::triggered, panel, [dock, panel] {
        dock->show();
        dock->raise();
        panel->surveyLoadedTreebank();
    });
    QAction* before = nullptr;
    for (QAction* a : file->actions()) {
        if (a->isSeparator()) {
            before = a;
            break;
        }
    }
    file->insertAction(before, survey);
    file->insertAction(before, treebank);
}

}  // namespace

SurveyDock addSurveyDock(QMainWindow* window, AnalysisSession* session, ComputeService* service,
                         QDockWidget* tabWith, const std::function<void()>& showHeadView) {
    SurveyDock out;
    out.panel = new SurveyPanel(session, service, window);
    // Scrolling: the table and charts side by side would otherwise set the window's minimum
    // height past a 1024 × 700 screen.
    auto* scroll = new QScrollArea(window);
    scroll->setWidget(out.panel);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    out.dock = new QDockWidget(QObject::tr("Survey"), window);
    out.dock->setObjectName(QStringLiteral("surveyDock"));
    out.dock->setWidget(scroll);
    window->addDockWidget(Qt::BottomDockWidgetArea, out.dock);
    window->tabifyDockWidget(tabWith, out.dock);
    out.dock->hide();
    QDockWidget* dock = out.dock;
    SurveyPanel* panel = out.panel;
    QObject::connect(panel, &SurveyPanel::surveyShown, dock, [dock] {
        dock->show();
        dock->raise();
    });
    QObject::connect(panel, &SurveyPanel::headActivated, window, showHeadView);
    // Closing the dock ends its label filter: half the grid stayed faded with the box that set
    // it gone (issue 30). The view action unticks only on a close, not when another dock's tab
    // is raised over this one.
    QObject::connect(dock->toggleViewAction(), &QAction::toggled, session, [session](bool on) {
        if (!on) {
            session->setLabelFilter({});
        }
    });
    WindowLayout::sizeOnFirstShow(window, dock);
    // The window builds its menus after its docks.
    QTimer::singleShot(
        0, panel, [window, session, dock, panel] { addMenuEntries(window, session, dock, panel); });
    return out;
}

void surveyWhenOpen(QMainWindow* window, AnalysisSession* session, ComputeService* service,
                    const QString& path) {
    auto* panel = window->findChild<SurveyPanel*>(QStringLiteral("surveyPanel"));
    if (!panel) {
        return;
    }
    if (session->model()) {
        panel->startSurvey(path);
        return;
    }
    auto once = std::make_shared<QMetaObject::Connection>();
    *once = QObject::connect(service, &ComputeService::loadFinished, panel,
                             [panel, path, once](bool ok) {
                                 QObject::disconnect(*once);
                                 if (ok) {
                                     panel->startSurvey(path);
                                 }
                             });
}

}  // namespace attnscope::app
