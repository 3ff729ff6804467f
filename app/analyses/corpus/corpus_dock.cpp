#include "analyses/corpus/corpus_dock.h"

#include <memory>

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>
#include <QScrollArea>

#include "analyses/corpus/one_stack_docks.h"
#include "analyses/registry.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "settings/window_layout.h"

namespace attnscope::app::corpus {

QDockWidget* addDock(const AnalysisHost& host, QWidget* panel, const QString& title,
                     const QString& objectName) {
    QMainWindow* window = host.window;
    auto* scroll = new QScrollArea(window);
    scroll->setWidget(panel);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* dock = new QDockWidget(title, window);
    dock->setObjectName(objectName);
    dock->setWidget(scroll);
    window->addDockWidget(Qt::BottomDockWidgetArea, dock);
    window->tabifyDockWidget(host.bottomDock, dock);
    dock->hide();
    WindowLayout::sizeOnFirstShow(window, dock);
    guardOneStackDock(dock, host.session);
    return dock;
}

void raiseDock(QDockWidget* dock) {
    dock->show();
    dock->raise();
}

QAction* addDockAction(QMenu* menu, const QString& text, const QString& objectName,
                       const QString& toolTip, QDockWidget* dock, std::function<void()> then) {
    QAction* action = menu->addAction(text);
    action->setObjectName(objectName);
    action->setToolTip(toolTip);
    QObject::connect(action, &QAction::triggered, dock, [dock, then = std::move(then)] {
        raiseDock(dock);
        then();
    });
    return action;
}

QDockWidget* dockPanel(const AnalysisHost& host, CorpusPanel* panel, const QString& title,
                       const QString& objectName) {
    QDockWidget* dock = addDock(host, panel, title, objectName);
    QObject::connect(panel, &CorpusPanel::headActivated, host.window, host.showHeadView);
    return dock;
}

QAction* addPanelAction(const AnalysisHost& host, QMenu* file, const QString& dockName,
                        const QString& text, const QString& objectName, const QString& toolTip,
                        void (CorpusPanel::*then)()) {
    auto* dock = host.window->findChild<QDockWidget*>(dockName);
    auto* panel = dock->findChild<CorpusPanel*>();
    return addDockAction(file, text, objectName, toolTip, dock,
                         [panel, then] { (panel->*then)(); });
}

void startWhenModelOpen(QMainWindow* window, const QString& panelName, AnalysisSession* session,
                        ComputeService* service, const QString& path) {
    if (auto* panel = window->findChild<CorpusPanel*>(panelName)) {
        runWhenModelOpen(session, service, panel, [panel, path] { panel->start(path); });
    }
}

void runWhenModelOpen(AnalysisSession* session, ComputeService* service, QObject* context,
                      std::function<void()> run) {
    if (session->model()) {
        run();
        return;
    }
    auto once = std::make_shared<QMetaObject::Connection>();
    *once = QObject::connect(service, &ComputeService::loadFinished, context,
                             [run = std::move(run), once](bool ok) {
                                 QObject::disconnect(*once);
                                 if (ok) {
                                     run();
                                 }
                             });
}

}  // namespace attnscope::app::corpus
