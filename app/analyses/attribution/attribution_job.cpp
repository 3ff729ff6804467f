// ComputeService's attribution jobs (issue 19), apart from compute_service.cpp: one method's
// maps of the session's clean pass. That pass already keeps its layer states (the service runs
// it so for ablations), with the session's mask, scale and map budget: what
// analysis::attributionPassOptions asks for, so the six methods share it and run no pass of
// their own.
#include <algorithm>

#include "attnscope/export/attribution_export.h"
#include "attnscope/forward/forward_pass.h"
#include "service/compute_service.h"

namespace attnscope::app {

namespace {

using analysis::AttributionMethod;
using ResultPtr = std::shared_ptr<const analysis::SentenceAnalysis>;

constexpr int kProgressSteps = 1000;

// The maps of `method` on `clean`; a pass of its own only when `clean` kept no layer states.
analysis::Attribution attributionOf(const model::Model& model, const ResultPtr& clean,
                                    AttributionMethod method, forward::ForwardOptions options,
                                    const analysis::AttributionOptions& how) {
    if (!clean->forward.layerStates.empty()) {
        return analysis::computeAttribution(model, clean->forward, method, how);
    }
    options = analysis::attributionPassOptions(options);
    options.cancel = how.cancel;
    const forward::ForwardResult pass =
        forward::runForward(model, {clean->forward.tokenIds, {}}, options);
    return analysis::computeAttribution(model, pass, method, how);
}

}  // namespace

void ComputeService::connectAttributions() {
    connect(m_session, &AnalysisSession::attributionRequested, this,
            &ComputeService::computeAttribution);
    connect(m_session, &AnalysisSession::attributionCancelRequested, this,
            &ComputeService::cancelAttribution);
    connect(m_session, &AnalysisSession::attributionsChanged, this,
            &ComputeService::cancelStaleAttributions);
    connect(&m_jobs, &JobRunner::progress, this, [this](JobKind kind, int, int) {
        if (kind != JobKind::FlowAttribution && kind != JobKind::ValueZeroingAttribution) {
            return;
        }
        for (const AttributionJob& job : m_attributionJobs) {
            const double f = job.fraction->load();
            if (f >= 0 && m_jobs.isRunning(job.id)) {
                m_session->setAttributionProgress(job.result, job.method, f);
            }
        }
    });
}

forward::ForwardOptions ComputeService::attributionOptions() const {
    forward::ForwardOptions options;
    options.mask = m_session->mask();
    options.scale = m_session->scale();
    options.mapBudgetBytes = m_session->mapBudgetBytes();
    return options;
}

void ComputeService::computeAttribution(AttributionMethod method) {
    const auto model = m_session->model();
    const ResultPtr clean = m_session->cleanResult();
    if (m_shutDown || !model || !clean || refused(tr("Attribution methods"))) {
        return;
    }
    const forward::ForwardOptions options = attributionOptions();
    const bool slow = analysis::isSlow(method);
    auto fraction = std::make_shared<std::atomic<double>>(-1.0);
    const JobKind kind = method == AttributionMethod::Flow ? JobKind::FlowAttribution
                         : method == AttributionMethod::ValueZeroing
                             ? JobKind::ValueZeroingAttribution
                             : JobKind::Attribution;
    const quint64 id = m_jobs.run(
        kind, slow ? &m_backgroundPool : &m_headPool,
        [this, model, clean, method, options, fraction](
            const CancelToken& cancel, JobProgress& progress) -> JobRunner::ApplyStep {
            analysis::AttributionOptions how;
            how.cancel = cancel;
            how.progress = [&progress, fraction](double f) {
                fraction->store(std::clamp(f, 0.0, 1.0));
                progress.total = kProgressSteps;
                progress.done = static_cast<int>(std::clamp(f, 0.0, 1.0) * kProgressSteps);
            };
            auto maps = std::make_shared<const analysis::Attribution>(
                attributionOf(*model, clean, method, options, how));
            return [this, clean, method, maps] { m_session->setAttribution(clean, method, maps); };
        },
        [this, clean, method](const JobEnd& end) {
            std::erase_if(m_attributionJobs,
                          [this](const AttributionJob& job) { return !m_jobs.isRunning(job.id); });
            if (end.status == JobEnd::Failed) {
                m_session->setAttributionFailed(clean, method, end.error);
            }
        });
    if (id != 0) {
        m_attributionJobs.push_back({method, clean, id, std::move(fraction)});
    }
}

void ComputeService::cancelAttribution(AttributionMethod method) {
    for (const AttributionJob& job : m_attributionJobs) {
        if (job.method == method) {
            m_jobs.cancel(job.id);
        }
    }
}

// Jobs of an earlier clean pass are wanted by nobody: the session dropped their states.
void ComputeService::cancelStaleAttributions() {
    const ResultPtr clean = m_session->cleanResult();
    for (const AttributionJob& job : m_attributionJobs) {
        if (job.result != clean) {
            m_jobs.cancel(job.id);
        }
    }
}

bool ComputeService::exportAttributions(const QString& path) {
    const auto model = m_session->model();
    const ResultPtr clean = m_session->cleanResult();
    if (!model || !clean) {
        m_session->reportError(tr("Nothing to export yet: type a sentence first."));
        return false;
    }
    if (refused(tr("Attribution export"))) {
        return false;
    }
    // The maps the session holds: a slow method is not started behind the user's back.
    std::vector<AttributionPtr> held;
    for (const AttributionMethod m : analysis::kAttributionMethods) {
        if (const AttributionPtr maps = m_session->attributionState(m).maps) {
            held.push_back(maps);
        }
    }
    exporting::AttributionFileInfo info;
    info.model = m_session->modelPath().toStdString();
    info.modelType = model->spec.modelType;
    info.maskKind = clean->forward.maskKind;
    info.text = clean->text;
    info.tokenIds = clean->forward.tokenIds;
    for (const tokenize::Token& t : clean->tokens) {
        info.tokens.push_back(t.text);
    }
    const forward::ForwardOptions options = attributionOptions();
    exportFile(path, [model, clean, held, info, options](const std::string& file) {
        std::vector<analysis::Attribution> all;
        for (const AttributionPtr& maps : held) {
            all.push_back(*maps);
        }
        const bool hasRaw = std::any_of(held.begin(), held.end(), [](const AttributionPtr& a) {
            return a->method == AttributionMethod::Raw;
        });
        if (!hasRaw) {  // the file's /attention; cheap, from the same pass
            all.insert(all.begin(),
                       attributionOf(*model, clean, AttributionMethod::Raw, options, {}));
        }
        exporting::writeAttributionHdf5(file, all, info);
    });
    return true;
}

}  // namespace attnscope::app
