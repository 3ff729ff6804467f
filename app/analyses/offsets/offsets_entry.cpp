// The Offsets tab: where each head looks, by relative position.
#include <QTabWidget>

#include "analyses/offsets/offsets_view.h"
#include "analyses/registry.h"

namespace attnscope::app {

Analysis offsetsAnalysis() {
    return {"offsets",
            [](const AnalysisHost& host) {
                host.tabs->addTab(new OffsetsView(host.session, host.tabs), QObject::tr("Offsets"));
            },
            nullptr};
}

}  // namespace attnscope::app
