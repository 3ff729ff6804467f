// The Methods tab: two attribution methods side by side (the head view shows one of them).
#include <QTabWidget>

#include "analyses/attribution/method_compare_view.h"
#include "analyses/registry.h"

namespace attnscope::app {

Analysis attributionAnalysis() {
    return {"attribution",
            [](const AnalysisHost& host) {
                host.tabs->addTab(new MethodCompareView(host.session, host.tabs),
                                  QObject::tr("Methods"));
            },
            nullptr};
}

}  // namespace attnscope::app
