#include "analyses/registry.h"

#include <utility>

#include <QDockWidget>
#include <QMainWindow>
#include <QTabWidget>

namespace attnscope::app {

// Each defined in its folder (analyses/<name>/<name>_entry.cpp, its view or its dock file).
Analysis compareAnalysis();
Analysis modelCompareAnalysis();
Analysis entropyAnalysis();
Analysis offsetsAnalysis();
Analysis saturationAnalysis();
Analysis seriesAnalysis();
Analysis dlaAnalysis();
Analysis lensAnalysis();
Analysis patchingAnalysis();
Analysis generationAnalysis();
Analysis circuitsAnalysis();
Analysis attributionAnalysis();
Analysis alignmentAnalysis();
Analysis dependenciesAnalysis();
Analysis corefAnalysis();
Analysis importanceAnalysis();
Analysis surveyAnalysis();

const std::vector<Analysis>& registeredAnalyses() {
    static const std::vector<Analysis> all = {
        compareAnalysis(),    modelCompareAnalysis(), entropyAnalysis(),  offsetsAnalysis(),
        saturationAnalysis(), seriesAnalysis(),       dlaAnalysis(),      lensAnalysis(),
        patchingAnalysis(),   generationAnalysis(),   circuitsAnalysis(), attributionAnalysis(),
        alignmentAnalysis(),  dependenciesAnalysis(), corefAnalysis(),    importanceAnalysis(),
        surveyAnalysis(),
    };
    return all;
}

Analysis tabAnalysis(const char* name, const char* title,
                     std::function<QWidget*(AnalysisSession*, QWidget* parent)> make) {
    return {name,
            [title, make = std::move(make)](const AnalysisHost& host) {
                host.tabs->addTab(make(host.session, host.tabs), QObject::tr(title));
            },
            nullptr};
}

void raiseDockWithTab(const AnalysisHost& host, QWidget* tab, const char* dockName) {
    QObject::connect(
        host.tabs, &QTabWidget::currentChanged, tab,
        [tab, tabs = host.tabs, window = host.window, dockName] {
            if (tabs->currentWidget() != tab) {
                return;
            }
            if (auto* dock = window->findChild<QDockWidget*>(QString::fromLatin1(dockName))) {
                dock->raise();
            }
        });
}

}  // namespace attnscope::app
