// The "Activation patching" tab (issue 34). Its jobs are made with the view; the target and
// distractor are picked in Predictions, so it comes to the front with the tab.
#include <QTabWidget>

#include "analyses/patching/patching_view.h"
#include "analyses/registry.h"

namespace attnscope::app {

Analysis patchingAnalysis() {
    return {"patching",
            [](const AnalysisHost& host) {
                auto* view = new PatchingView(host.session, host.service, host.tabs);
                const int tab = host.tabs->addTab(view, QObject::tr("Activation patching"));
                host.tabs->setTabToolTip(
                    tab, QObject::tr("Activation and path patching: which heads and layers carry "
                                     "the difference between a clean and a corrupted prompt"));
                QObject::connect(view, &PatchingView::headActivated, view,
                                 [show = host.showHeadView] { show(); });
                raiseDockWithTab(host, view, "predictionDock");
            },
            nullptr};
}

}  // namespace attnscope::app
