#include "analyses/dla/dla_job.h"

#include "analyses/dla/dla_document.h"
#include "attnscope/forward/prediction.h"
#include "session/analysis_session.h"

namespace attnscope::app {

namespace {

using Run = DlaDocument::Run;

// On the worker: the attribution asked for, with the pieces the view names.
std::shared_ptr<const Run> attribute(const model::Model& m,
                                     const std::shared_ptr<const analysis::SentenceAnalysis>& pass,
                                     int position, const PickedTokens& picked) {
    const forward::ForwardResult& r = pass->forward;
    const std::int32_t target =
        picked.target ? *picked.target : forward::topPredictions(m, r, position, 1).front().id;
    auto run = std::make_shared<Run>();
    run->forPass = pass;
    run->picked = picked;
    run->attribution = analysis::directLogitAttribution(m, r, position, target, picked.distractor);
    analysis::checkSum(run->attribution);
    run->targetPiece = forward::tokenPiece(m, target);
    if (picked.distractor) {
        run->distractorPiece = forward::tokenPiece(m, *picked.distractor);
    }
    run->positionPiece = pass->label(position);
    run->nLayers = m.spec.nLayers;
    run->nHeads = m.spec.nHeads;
    return run;
}

}  // namespace

DlaJob::DlaJob(ComputeService& service) : CorpusJob(service, tr("Logit attribution")) {
    auto& document = session().document<DlaDocument>();
    connect(&session(), &AnalysisSession::resultChanged, this, &DlaJob::follow);
    connect(&session(), &AnalysisSession::selectedTokenChanged, this, &DlaJob::follow);
    connect(&session(), &AnalysisSession::pickedTokensChanged, this, &DlaJob::follow);
    connect(&document, &DlaDocument::viewedChanged, this, &DlaJob::follow);
}

void DlaJob::follow() {
    auto& document = session().document<DlaDocument>();
    const auto m = model();
    const auto clean = session().cleanResult();
    const int position = session().predictionPosition();
    if (!document.isViewed() || !m || !clean || session().seq2seq() || position < 0 ||
        !analysis::dlaUnsupportedReason(*m).empty()) {
        return;
    }
    const PickedTokens picked = session().pickedTokens();
    if (const auto shown = document.run(); shown && document.isCurrent(*shown)) {
        return;  // an ablation toggled, or the tab came back: the same attribution
    }
    if (isRunning() && m_started.pass.lock() == clean && m_started.position == position &&
        m_started.picked == picked) {
        return;
    }
    m_started = {clean, position, picked};
    Work work = [this, m, clean, position, picked](const CancelToken&,
                                                   JobProgress&) -> JobRunner::ApplyStep {
        auto run = attribute(*m, clean, position, picked);
        return [this, run = std::move(run)] { session().document<DlaDocument>().setRun(run); };
    };
    CorpusJob::start(
        QString(), std::move(work),
        {tr("The logit attribution failed: "), tr("The logit attribution was cancelled.")});
}

}  // namespace attnscope::app
