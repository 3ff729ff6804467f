// The "Saturation" tab (issue 33): the saturation lab's what-ifs and its scatter of every head.
// Its job (the model as it is, while a what-if is on) is made here, so it follows the session
// from the start.
#include <QTabWidget>

#include "analyses/registry.h"
#include "analyses/saturation/saturation_job.h"
#include "analyses/saturation/saturation_view.h"
#include "service/compute_service.h"

namespace attnscope::app {

Analysis saturationAnalysis() {
    return {"saturation",
            [](const AnalysisHost& host) {
                host.service->job<SaturationJob>();
                auto* view = new SaturationView(host.session, host.tabs);
                host.tabs->addTab(view, QObject::tr("Saturation"));
                QObject::connect(view, &SaturationView::headActivated, view,
                                 [show = host.showHeadView] { show(); });
            },
            nullptr};
}

}  // namespace attnscope::app
