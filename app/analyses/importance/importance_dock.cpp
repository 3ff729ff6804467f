#include "analyses/importance/importance_dock.h"

#include "analyses/importance/importance_panel.h"

namespace attnscope::app {

Analysis importanceAnalysis() {
    return {"importance",
            [](const AnalysisHost& host) {
                corpus::addPanelDock<ImportancePanel>(host, QObject::tr("Importance"),
                                                      QStringLiteral("importanceDock"),
                                                      &ImportancePanel::importanceShown);
            },
            [](const AnalysisHost& host, QMenu* file) {
                // "…" asks: the corpus is chosen (the path field's file preselected), never
                // assumed (issue 30: a loaded treebank in the field started a run at once).
                corpus::addPanelAction(
                    host, file, QStringLiteral("importanceDock"), QObject::tr("Head &importance…"),
                    QStringLiteral("importanceAction"),
                    QObject::tr("Which heads matter: ablate each head alone on a corpus"));
            }};
}

void computeImportanceWhenOpen(QMainWindow* window, AnalysisSession* session,
                               ComputeService* service, const QString& path) {
    corpus::startWhenModelOpen(window, QStringLiteral("importancePanel"), session, service, path);
}

}  // namespace attnscope::app
