#include "analyses/importance/importance_dock.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>

#include "analyses/corpus/corpus_dock.h"
#include "analyses/importance/importance_panel.h"
#include "analyses/registry.h"

namespace attnscope::app {

Analysis importanceAnalysis() {
    return {"importance",
            [](const AnalysisHost& host) {
                auto* panel = new ImportancePanel(host.session, host.service, host.window);
                QDockWidget* dock = corpus::addDock(host, panel, QObject::tr("Importance"),
                                                    QStringLiteral("importanceDock"));
                QObject::connect(panel, &ImportancePanel::importanceShown, dock,
                                 [dock] { corpus::raiseDock(dock); });
                QObject::connect(panel, &ImportancePanel::headActivated, host.window,
                                 host.showHeadView);
            },
            [](const AnalysisHost& host, QMenu* file) {
                auto* dock = host.window->findChild<QDockWidget*>(QStringLiteral("importanceDock"));
                auto* panel = host.window->findChild<ImportancePanel*>();
                // "…" asks: the corpus is chosen (the path field's file preselected), never
                // assumed (issue 30: a loaded treebank in the field started a run at once).
                corpus::addDockAction(
                    file, QObject::tr("Head &importance…"), QStringLiteral("importanceAction"),
                    QObject::tr("Which heads matter: ablate each head alone on a corpus"), dock,
                    [panel] { panel->askForCorpus(); });
            }};
}

void computeImportanceWhenOpen(QMainWindow* window, AnalysisSession* session,
                               ComputeService* service, const QString& path) {
    if (auto* panel = window->findChild<ImportancePanel*>(QStringLiteral("importancePanel"))) {
        corpus::runWhenModelOpen(session, service, panel,
                                 [panel, path] { panel->startComputing(path); });
    }
}

}  // namespace attnscope::app
