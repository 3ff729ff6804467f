// The "Logit lens" tab (issue 34). Its job is made here, so that it follows the session (and the
// tab being on screen) from the start.
#include <QTabWidget>

#include "analyses/lens/lens_job.h"
#include "analyses/lens/lens_view.h"
#include "analyses/registry.h"
#include "service/compute_service.h"

namespace attnscope::app {

Analysis lensAnalysis() {
    return {"lens",
            [](const AnalysisHost& host) {
                auto& job = host.service->job<LensJob>();
                auto* view = new LensView(host.session, host.tabs);
                QObject::connect(&job, &CorpusJob::finished, view, &LensView::jobEnded);
                const int tab = host.tabs->addTab(view, QObject::tr("Logit lens"));
                host.tabs->setTabToolTip(tab, QObject::tr("What the model would predict after "
                                                          "each layer, at every token"));
            },
            nullptr};
}

}  // namespace attnscope::app
