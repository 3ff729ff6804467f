// The Compare tab: two heads side by side (A, the selected head, and B).
#include <QTabWidget>

#include "analyses/compare/compare_view.h"
#include "analyses/registry.h"

namespace attnscope::app {

Analysis compareAnalysis() {
    return {"compare",
            [](const AnalysisHost& host) {
                host.tabs->addTab(new CompareView(host.session, host.tabs), QObject::tr("Compare"));
            },
            nullptr};
}

}  // namespace attnscope::app
