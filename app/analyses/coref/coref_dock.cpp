#include "analyses/coref/coref_dock.h"

#include <memory>

#include <QDockWidget>
#include <QMainWindow>
#include <QScrollArea>

#include "analyses/coref/coref_panel.h"
#include "service/compute_service.h"
#include "settings/window_layout.h"

namespace attnscope::app {

CorefDock addCorefDock(QMainWindow* window, AnalysisSession* session, ComputeService* service,
                       QDockWidget* tabWith, const std::function<void()>& showHeadView) {
    CorefDock out;
    out.panel = new CorefPanel(session, service, window);
    // Scrolling: the table and the heatmap side by side would otherwise set the window's
    // minimum height past a 1024 × 700 screen.
    auto* scroll = new QScrollArea(window);
    scroll->setWidget(out.panel);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    out.dock = new QDockWidget(QObject::tr("Coreference"), window);
    out.dock->setObjectName(QStringLiteral("corefDock"));
    out.dock->setWidget(scroll);
    window->addDockWidget(Qt::BottomDockWidgetArea, out.dock);
    window->tabifyDockWidget(tabWith, out.dock);
    out.dock->hide();
    QDockWidget* dock = out.dock;
    QObject::connect(out.panel, &CorefPanel::corefScored, dock, [dock] {
        dock->show();
        dock->raise();
    });
    QObject::connect(out.panel, &CorefPanel::headActivated, window, showHeadView);
    QObject::connect(out.panel, &CorefPanel::windowChosen, window, showHeadView);
    // Opened at its minimum it shows one table row (later, the user's size stands).
    WindowLayout::sizeOnFirstShow(window, dock);
    return out;
}

void scoreWhenModelOpen(CorefPanel* panel, AnalysisSession* session, ComputeService* service,
                        const QString& path) {
    if (session->model()) {
        panel->startScoring(path);
        return;
    }
    auto once = std::make_shared<QMetaObject::Connection>();
    *once = QObject::connect(service, &ComputeService::loadFinished, panel,
                             [panel, path, once](bool ok) {
                                 QObject::disconnect(*once);
                                 if (ok) {
                                     panel->startScoring(path);
                                 }
                             });
}

}  // namespace attnscope::app
