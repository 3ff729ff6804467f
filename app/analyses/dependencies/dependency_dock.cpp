// The "Dependencies" analysis in the main window (registered in analyses/registry.cpp): its
// dock, first of the corpus docks (corpus/corpus_dock.h), opened when a treebank is scored, and
// File ▸ Open treebank for dependency scoring….
#include "analyses/corpus/corpus_dock.h"
#include "analyses/dependencies/dependency_panel.h"

namespace attnscope::app {

Analysis dependenciesAnalysis() {
    return {"dependencies",
            [](const AnalysisHost& host) {
                corpus::addPanelDock<DependencyPanel>(
                    host, QObject::tr("Dependencies"), QStringLiteral("dependencyDock"),
                    &DependencyPanel::treebankScored, corpus::OnShown::Show);
            },
            [](const AnalysisHost& host, QMenu* file) {
                corpus::addPanelAction(host, file, QStringLiteral("dependencyDock"),
                                       QObject::tr("Open &treebank for dependency scoring…"),
                                       QStringLiteral("dependencyAction"), {});
            }};
}

}  // namespace attnscope::app
