// The "Training" tab (issue 33): a series of training checkpoints, every head's statistics
// against the step, and stepping through the series.
#include <QTabWidget>

#include "analyses/registry.h"
#include "analyses/series/series_view.h"

namespace attnscope::app {

Analysis seriesAnalysis() {
    return {"series",
            [](const AnalysisHost& host) {
                auto* view = new SeriesView(host.session, host.service, host.tabs);
                host.tabs->addTab(view, QObject::tr("Training"));
                QObject::connect(view, &SeriesView::headActivated, view,
                                 [show = host.showHeadView] { show(); });
            },
            nullptr};
}

}  // namespace attnscope::app
