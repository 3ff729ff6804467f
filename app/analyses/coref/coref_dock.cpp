#include "analyses/coref/coref_dock.h"

#include "analyses/coref/coref_panel.h"

namespace attnscope::app {

Analysis corefAnalysis() {
    return {"coref",
            [](const AnalysisHost& host) {
                const auto [panel, dock] = corpus::addPanelDock<CorefPanel>(
                    host, QObject::tr("Coreference"), QStringLiteral("corefDock"),
                    &CorefPanel::corefScored);
                // A window chosen: its arcs are drawn in the head view.
                QObject::connect(panel, &CorefPanel::windowChosen, host.window, host.showHeadView);
            },
            [](const AnalysisHost& host, QMenu* file) {
                // Runs the file in the path field, if there is one.
                corpus::addPanelAction(
                    host, file, QStringLiteral("corefDock"), QObject::tr("Score &coreference…"),
                    QStringLiteral("corefAction"), {}, &CorpusPanel::runChosenFile);
            }};
}

void scoreCorefWhenOpen(QMainWindow* window, AnalysisSession* session, ComputeService* service,
                        const QString& path) {
    corpus::startWhenModelOpen(window, QStringLiteral("corefPanel"), session, service, path);
}

}  // namespace attnscope::app
