#include "analyses/patching/patching_job.h"

#include "analyses/patching/patch_tokens.h"
#include "attnscope/forward/prediction.h"
#include "session/analysis_session.h"

namespace attnscope::app {

namespace {

using Endpoints = PatchingDocument::Endpoints;

bool sameAsked(const Endpoints& known, const PatchingRequest& r) {
    return known.forPass.lock() == r.pass && known.base->setup.corrupted == r.corrupted &&
           known.base->setup.position == r.position && known.askedTarget == r.target &&
           known.askedDistractor == r.distractor;
}

std::vector<std::string> labelsOf(const model::Model& m, const std::vector<std::int32_t>& ids) {
    std::vector<std::string> labels;
    labels.reserve(ids.size());
    for (const std::int32_t id : ids) {
        labels.push_back(analysis::tokenLabel(analysis::idPiece(m, id)));
    }
    return labels;
}

// On the worker: `known` when it answers the request, else the two runs afresh.
std::shared_ptr<const Endpoints> endpointsFor(const model::Model& m, const PatchingRequest& r,
                                              std::shared_ptr<const Endpoints> known,
                                              const CancelToken& cancel) {
    if (known && sameAsked(*known, r)) {
        return known;
    }
    forward::ForwardOptions options = r.options;
    options.cancel = cancel;
    analysis::PatchingSetup setup;
    setup.clean = r.pass->forward.tokenIds;
    setup.corrupted = r.corrupted;
    setup.position = r.position;
    choosePatchTokens(m, setup, r.target, r.distractor, options);
    auto out = std::make_shared<Endpoints>();
    out->forPass = r.pass;
    out->base = std::make_shared<const analysis::PatchingBase>(
        analysis::runPatchingBase(m, std::move(setup), options));
    out->askedTarget = r.target;
    out->askedDistractor = r.distractor;
    out->targetPiece = forward::tokenPiece(m, out->base->setup.target);
    out->distractorPiece = forward::tokenPiece(m, out->base->setup.distractor);
    out->corruptedText = r.corruptedText;
    for (int p = 0; p < r.pass->forward.nTokens; ++p) {
        out->cleanLabels.push_back(r.pass->label(p));
    }
    out->corruptedLabels = labelsOf(m, r.corrupted);
    out->nLayers = m.spec.nLayers;
    out->nHeads = m.spec.nHeads;
    return out;
}

}  // namespace

PatchingJob::PatchingJob(ComputeService& service) : CorpusJob(service, tr("Activation patching")) {}

void PatchingJob::runSweep(PatchingRequest request, analysis::PatchSweep sweep,
                           analysis::PatchDirection direction) {
    const auto m = model();
    if (!m || !request.pass) {
        return;
    }
    const auto known = session().document<PatchingDocument>().endpoints();
    Work work = [this, m, request = std::move(request), known, sweep, direction](
                    const CancelToken& cancel, JobProgress& progress) -> JobRunner::ApplyStep {
        auto out = std::make_shared<PatchingDocument::Sweep>();
        out->endpoints = endpointsFor(*m, request, known, cancel);
        out->grid = analysis::patchSweep(*m, *out->endpoints->base, sweep, direction, cancel,
                                         passesDone(progress));
        return [this, out] { session().document<PatchingDocument>().setSweep(out); };
    };
    CorpusJob::start(
        QString(), std::move(work),
        {tr("Activation patching failed: "), tr("Activation patching was cancelled.")});
}

PathPatchingJob::PathPatchingJob(ComputeService& service)
    : CorpusJob(service, tr("Path patching")) {}

void PathPatchingJob::runPath(PatchingRequest request, analysis::PathSpec path) {
    const auto m = model();
    if (!m || !request.pass) {
        return;
    }
    const auto known = session().document<PatchingDocument>().endpoints();
    Work work = [this, m, request = std::move(request), known, path](
                    const CancelToken& cancel, JobProgress&) -> JobRunner::ApplyStep {
        PatchingDocument::PathRow row;
        row.endpoints = endpointsFor(*m, request, known, cancel);
        row.spec = path;
        row.result = analysis::pathPatch(*m, *row.endpoints->base, path, cancel);
        return
            [this, row = std::move(row)] { session().document<PatchingDocument>().addPath(row); };
    };
    CorpusJob::start(QString(), std::move(work),
                     {tr("Path patching failed: "), tr("Path patching was cancelled.")});
}

}  // namespace attnscope::app
