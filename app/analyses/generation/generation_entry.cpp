// The "Generation" tab (issue 34, item 5). Its job is made here; the view starts it.
#include <QTabWidget>

#include "analyses/generation/generation_job.h"
#include "analyses/generation/generation_view.h"
#include "analyses/registry.h"
#include "service/compute_service.h"

namespace attnscope::app {

Analysis generationAnalysis() {
    return {"generation",
            [](const AnalysisHost& host) {
                auto& job = host.service->job<GenerationJob>();
                auto* view = new GenerationView(host.session, job, host.tabs);
                QObject::connect(&job, &CorpusJob::finished, view, &GenerationView::jobEnded);
                const int tab = host.tabs->addTab(view, QObject::tr("Generation"));
                host.tabs->setTabToolTip(
                    tab, QObject::tr("Attention while generating: continue the sentence and step "
                                     "through where every head looks"));
            },
            nullptr};
}

}  // namespace attnscope::app
