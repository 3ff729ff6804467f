#include "analyses/coref/coref_dock.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>

#include "analyses/coref/coref_panel.h"
#include "analyses/corpus/corpus_dock.h"
#include "analyses/registry.h"

namespace attnscope::app {

Analysis corefAnalysis() {
    return {"coref",
            [](const AnalysisHost& host) {
                auto* panel = new CorefPanel(host.session, host.service, host.window);
                QDockWidget* dock = corpus::addDock(host, panel, QObject::tr("Coreference"),
                                                    QStringLiteral("corefDock"));
                QObject::connect(panel, &CorefPanel::corefScored, dock,
                                 [dock] { corpus::raiseDock(dock); });
                QObject::connect(panel, &CorefPanel::headActivated, host.window, host.showHeadView);
                // A window chosen: its arcs are drawn in the head view.
                QObject::connect(panel, &CorefPanel::windowChosen, host.window, host.showHeadView);
            },
            [](const AnalysisHost& host, QMenu* file) {
                auto* dock = host.window->findChild<QDockWidget*>(QStringLiteral("corefDock"));
                auto* panel = host.window->findChild<CorefPanel*>();
                corpus::addDockAction(file, QObject::tr("Score &coreference…"),
                                      QStringLiteral("corefAction"), {}, dock,
                                      [panel] { panel->scoreChosenFile(); });
            }};
}

void scoreCorefWhenOpen(QMainWindow* window, AnalysisSession* session, ComputeService* service,
                        const QString& path) {
    if (auto* panel = window->findChild<CorefPanel*>()) {
        corpus::runWhenModelOpen(session, service, panel,
                                 [panel, path] { panel->startScoring(path); });
    }
}

}  // namespace attnscope::app
