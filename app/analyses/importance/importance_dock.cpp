#include "analyses/importance/importance_dock.h"

#include <memory>

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QScrollArea>
#include <QTimer>

#include "analyses/importance/importance_panel.h"
#include "service/compute_service.h"
#include "settings/window_layout.h"

namespace attnscope::app {

namespace {

// File ▸ Head importance…, after "Score coreference…": the File menu's first group ends at
// its first separator.
void addMenuEntry(QMainWindow* window, QDockWidget* dock, ImportancePanel* panel) {
    const QList<QAction*> menus = window->menuBar()->actions();
    QMenu* file = menus.isEmpty() ? nullptr : menus.front()->menu();
    if (!file) {
        return;
    }
    auto* action = new QAction(QObject::tr("Head &importance…"), file);
    action->setObjectName(QStringLiteral("importanceAction"));
    action->setToolTip(QObject::tr("Which heads matter: ablate each head alone on a corpus"));
    // "…" asks: the corpus is chosen (the path field's file preselected), never assumed
    // (issue 30: a loaded treebank in the field started a run at once).
    QObject::connect(action, &QAction::triggered, panel, [dock, panel] {
        dock->show();
        dock->raise();
        panel->askForCorpus();
    });
    QAction* before = nullptr;
    for (QAction* a : file->actions()) {
        if (a->isSeparator()) {
            before = a;
            break;
        }
    }
    file->insertAction(before, action);
}

}  // namespace

ImportanceDock addImportanceDock(QMainWindow* window, AnalysisSession* session,
                                 ComputeService* service, QDockWidget* tabWith,
                                 const std::function<void()>& showHeadView) {
    ImportanceDock out;
    out.panel = new ImportancePanel(session, service, window);
    // Scrolling: the heatmap, table and chart side by side would otherwise set the window's
    // minimum height past a 1024 × 700 screen.
    auto* scroll = new QScrollArea(window);
    scroll->setWidget(out.panel);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    out.dock = new QDockWidget(QObject::tr("Importance"), window);
    out.dock->setObjectName(QStringLiteral("importanceDock"));
    out.dock->setWidget(scroll);
    window->addDockWidget(Qt::BottomDockWidgetArea, out.dock);
    window->tabifyDockWidget(tabWith, out.dock);
    out.dock->hide();
    QDockWidget* dock = out.dock;
    ImportancePanel* panel = out.panel;
    QObject::connect(panel, &ImportancePanel::importanceShown, dock, [dock] {
        dock->show();
        dock->raise();
    });
    QObject::connect(panel, &ImportancePanel::headActivated, window, showHeadView);
    WindowLayout::sizeOnFirstShow(window, dock);
    // The window builds its menus after its docks.
    QTimer::singleShot(0, panel, [window, dock, panel] { addMenuEntry(window, dock, panel); });
    return out;
}

void computeImportanceWhenOpen(QMainWindow* window, AnalysisSession* session,
                               ComputeService* service, const QString& path) {
    auto* panel = window->findChild<ImportancePanel*>(QStringLiteral("importancePanel"));
    if (!panel) {
        return;
    }
    if (session->model()) {
        panel->startComputing(path);
        return;
    }
    auto once = std::make_shared<QMetaObject::Connection>();
    *once = QObject::connect(service, &ComputeService::loadFinished, panel,
                             [panel, path, once](bool ok) {
                                 QObject::disconnect(*once);
                                 if (ok) {
                                     panel->startComputing(path);
                                 }
                             });
}

}  // namespace attnscope::app
