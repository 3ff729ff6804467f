// The "Compare models" tab and its File entry (issue 32): the model open against a second model
// of the same layers and heads, head by head.
#include <QAction>
#include <QMenu>
#include <QTabWidget>

#include "analyses/model_compare/model_compare_view.h"
#include "analyses/registry.h"

namespace attnscope::app {

namespace {

ModelCompareView* viewIn(const AnalysisHost& host) {
    return host.tabs->findChild<ModelCompareView*>(QStringLiteral("modelCompareView"));
}

}  // namespace

Analysis modelCompareAnalysis() {
    return {"model_compare",
            [](const AnalysisHost& host) {
                auto* view = new ModelCompareView(host.session, host.service, host.tabs);
                host.tabs->addTab(view, QObject::tr("Compare models"));
                // A head double-clicked is shown in both models by the Compare tab, which turned
                // to them when the second model arrived. Found by its name: no analysis
                // includes another.
                QObject::connect(view, &ModelCompareView::headActivated, view, [tabs = host.tabs] {
                    if (auto* compare = tabs->findChild<QWidget*>(QStringLiteral("compareView"))) {
                        tabs->setCurrentWidget(compare);
                    }
                });
            },
            [](const AnalysisHost& host, QMenu* file) {
                ModelCompareView* view = viewIn(host);
                QAction* action = file->addAction(QObject::tr("Compare with another &model…"), view,
                                                  [tabs = host.tabs, view] {
                                                      tabs->setCurrentWidget(view);
                                                      view->askForModel();
                                                  });
                action->setObjectName(QStringLiteral("compareModelsAction"));
                action->setToolTip(
                    view->findChild<QWidget*>(QStringLiteral("compareModelButton"))->toolTip());
            }};
}

}  // namespace attnscope::app
