// The Entropy tab: every head's entropy and |logit| charts for the sentence on screen.
#include <QTabWidget>

#include "analyses/entropy/entropy_charts.h"
#include "analyses/registry.h"

namespace attnscope::app {

Analysis entropyAnalysis() {
    return {"entropy",
            [](const AnalysisHost& host) {
                host.tabs->addTab(new EntropyChartsView(host.session, host.tabs),
                                  QObject::tr("Entropy"));
            },
            nullptr};
}

}  // namespace attnscope::app
