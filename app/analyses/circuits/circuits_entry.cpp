// The "Circuits" tab (issue 34). Its job is made here, so that it follows the model (and the
// tab being on screen) from the start.
#include <QTabWidget>

#include "analyses/circuits/circuits_job.h"
#include "analyses/circuits/circuits_view.h"
#include "analyses/registry.h"
#include "service/compute_service.h"

namespace attnscope::app {

Analysis circuitsAnalysis() {
    return {"circuits",
            [](const AnalysisHost& host) {
                auto& job = host.service->job<CircuitsJob>();
                auto* view = new CircuitsView(host.session, &job, host.tabs);
                const int tab = host.tabs->addTab(view, QObject::tr("Circuits"));
                host.tabs->setTabToolTip(
                    tab, QObject::tr("Weight-space circuits: each head's QK and OV spectra, "
                                     "copying score and how heads compose"));
            },
            nullptr};
}

}  // namespace attnscope::app
