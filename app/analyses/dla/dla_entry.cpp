// The "Logit attribution" tab (issue 34). Its job is made here, so that it follows the session
// (and the tab being on screen) from the start.
#include <QTabWidget>

#include "analyses/dla/dla_job.h"
#include "analyses/dla/dla_view.h"
#include "analyses/registry.h"
#include "service/compute_service.h"

namespace attnscope::app {

Analysis dlaAnalysis() {
    return {"dla",
            [](const AnalysisHost& host) {
                auto& job = host.service->job<DlaJob>();
                auto* view = new DlaView(host.session, host.tabs);
                QObject::connect(&job, &CorpusJob::finished, view, &DlaView::jobEnded);
                const int tab = host.tabs->addTab(view, QObject::tr("Logit attribution"));
                host.tabs->setTabToolTip(
                    tab, QObject::tr("Direct logit attribution: which heads, MLPs and embeddings "
                                     "write the predicted token's logit"));
                QObject::connect(view, &DlaView::headActivated, view,
                                 [show = host.showHeadView] { show(); });
                // The target and distractor are picked in Predictions: bring it to the front.
                raiseDockWithTab(host, view, "predictionDock");
            },
            nullptr};
}

}  // namespace attnscope::app
