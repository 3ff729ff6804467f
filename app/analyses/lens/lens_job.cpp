#include "analyses/lens/lens_job.h"

#include "attnscope/forward/prediction.h"
#include "session/analysis_session.h"

namespace attnscope::app {

namespace {

using Run = LensDocument::Run;
using PickedAt = LensDocument::PickedAt;

// Each position's final prediction as its target, the picked target at its position: the lens
// takes all or nothing, so the others are found as the lens would (ties to the lower id).
std::vector<std::int32_t> targetsOf(const model::Model& m, const forward::ForwardResult& r,
                                    const std::optional<PickedAt>& picked) {
    if (!picked) {
        return {};  // the lens's own default: every final prediction
    }
    std::vector<std::int32_t> targets(static_cast<std::size_t>(r.nTokens));
    for (int p = 0; p < r.nTokens; ++p) {
        targets[static_cast<std::size_t>(p)] =
            p == picked->position ? picked->target : forward::topPredictions(m, r, p, 1).front().id;
    }
    return targets;
}

}  // namespace

LensJob::LensJob(ComputeService& service) : CorpusJob(service, tr("Logit lens")) {
    auto& document = session().document<LensDocument>();
    connect(&session(), &AnalysisSession::resultChanged, this, &LensJob::follow);
    connect(&session(), &AnalysisSession::selectedTokenChanged, this, &LensJob::follow);
    connect(&session(), &AnalysisSession::pickedTokensChanged, this, &LensJob::follow);
    connect(&document, &LensDocument::wantChanged, this, &LensJob::follow);
}

void LensJob::follow() {
    auto& document = session().document<LensDocument>();
    const std::shared_ptr<const model::Model> m = model();
    const auto clean = session().cleanResult();
    if (!document.isViewed() || !m || !clean || session().seq2seq() ||
        !analysis::lensUnsupportedReason(*m).empty()) {
        return;
    }
    const int topK = document.topK();
    const std::optional<PickedAt> picked = document.pickedNow();
    if (const auto shown = document.run(); shown && document.isCurrent(*shown)) {
        return;  // an ablation toggled, or the tab came back: the same lens
    }
    if (isRunning() && m_started.pass.lock() == clean && m_started.topK == topK &&
        m_started.picked == picked) {
        return;
    }
    m_started = {clean, topK, picked};
    Work work = [this, m, clean, topK, picked](const CancelToken& cancel,
                                               JobProgress&) -> JobRunner::ApplyStep {
        const forward::ForwardResult& r = clean->forward;
        auto run = std::make_shared<Run>();
        run->forPass = clean;
        run->model = m;
        run->topK = topK;
        run->picked = picked;
        run->lens = analysis::logitLens(*m, r, topK, targetsOf(*m, r, picked), cancel);
        for (int p = 0; p < r.nTokens; ++p) {
            run->tokenLabels.push_back(clean->label(p));
        }
        return [this, run] { session().document<LensDocument>().setRun(run); };
    };
    CorpusJob::start(QString(), std::move(work),
                     {tr("The logit lens failed: "), tr("The logit lens was cancelled.")});
}

}  // namespace attnscope::app
