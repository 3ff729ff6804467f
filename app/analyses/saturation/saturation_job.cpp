#include "analyses/saturation/saturation_job.h"

#include "analyses/saturation/saturation_document.h"
#include "attnscope/forward/forward_pass.h"
#include "session/analysis_session.h"

namespace attnscope::app {

SaturationJob::SaturationJob(ComputeService& service)
    : CorpusJob(service, tr("Saturation baseline")) {
    connect(&session(), &AnalysisSession::resultChanged, this, &SaturationJob::follow);
}

void SaturationJob::follow() {
    auto& document = session().document<SaturationDocument>();
    const auto clean = session().cleanResult();
    const auto m = model();
    if (!m || !clean || session().seq2seq() || session().showsModelAsIs()) {
        document.clearBaseline();
        return;
    }
    const auto shown = document.baseline();
    if ((isRunning() && m_started.lock() == clean) || (shown && shown->forPass.lock() == clean)) {
        return;  // an ablation toggled: the clean pass is the same
    }
    m_started = clean;
    forward::ForwardOptions options;
    options.mask = session().mask();
    options.mapBudgetBytes = 0;  // summaries are all it needs
    options.recordUnnormed = true;
    Work work = [this, m, clean, options](const CancelToken& cancel,
                                          JobProgress&) -> JobRunner::ApplyStep {
        forward::ForwardOptions withCancel = options;
        withCancel.cancel = cancel;
        const forward::ForwardResult plain =
            forward::runForward(*m, {clean->forward.tokenIds, {}}, withCancel);
        auto baseline = std::make_shared<SaturationDocument::Baseline>(
            SaturationDocument::Baseline{clean, analysis::saturationStats(plain)});
        return [this, baseline = std::move(baseline)] {
            session().document<SaturationDocument>().setBaseline(baseline);
        };
    };
    CorpusJob::start(
        QString(), std::move(work),
        {tr("The saturation baseline failed: "), tr("The saturation baseline was cancelled.")});
}

}  // namespace attnscope::app
