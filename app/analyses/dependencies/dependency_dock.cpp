// The "Dependencies" analysis in the main window (registered in analyses/registry.cpp): its
// dock, first of the corpus docks (corpus/corpus_dock.h), opened when a treebank is scored, and
// File ▸ Open treebank for dependency scoring….
#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>

#include "analyses/corpus/corpus_dock.h"
#include "analyses/dependencies/dependency_panel.h"
#include "analyses/registry.h"

namespace attnscope::app {

Analysis dependenciesAnalysis() {
    return {"dependencies",
            [](const AnalysisHost& host) {
                auto* panel = new DependencyPanel(host.session, host.service, host.window);
                QDockWidget* dock = corpus::addDock(host, panel, QObject::tr("Dependencies"),
                                                    QStringLiteral("dependencyDock"));
                QObject::connect(panel, &DependencyPanel::treebankScored, dock, &QWidget::show);
                QObject::connect(panel, &DependencyPanel::headActivated, host.window,
                                 host.showHeadView);
            },
            [](const AnalysisHost& host, QMenu* file) {
                auto* dock = host.window->findChild<QDockWidget*>(QStringLiteral("dependencyDock"));
                auto* panel = host.window->findChild<DependencyPanel*>();
                corpus::addDockAction(file, QObject::tr("Open &treebank for dependency scoring…"),
                                      QStringLiteral("dependencyAction"), {}, dock,
                                      [panel] { panel->askForTreebank(); });
            }};
}

}  // namespace attnscope::app
