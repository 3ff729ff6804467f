// The attribution jobs' work: one method's maps of the session's clean pass. That pass already
// keeps its layer states (the service runs it so for ablations), with the session's mask, scale
// and map budget: what analysis::attributionPassOptions asks for, so the six methods share it
// and run no pass of their own.
#include "service/attribution_jobs.h"

#include <algorithm>

#include "attnscope/export/attribution_export.h"
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

AttributionJobs::AttributionJobs(ComputeService& service) : m_service(service) {
    AttributionMaps& maps = service.session().attributions();
    connect(&maps, &AttributionMaps::requested, this, &AttributionJobs::compute);
    connect(&maps, &AttributionMaps::cancelRequested, this, &AttributionJobs::cancel);
    connect(&maps, &AttributionMaps::changed, this, &AttributionJobs::cancelStale);
    connect(&service.runner(), &JobRunner::progress, this, [this](JobKind kind, int, int) {
        if (kind == JobKind::FlowAttribution || kind == JobKind::ValueZeroingAttribution) {
            reportProgress();
        }
    });
}

void AttributionJobs::reportProgress() {
    for (const Job& job : m_jobs) {
        const double f = job.fraction->load();
        if (f >= 0 && m_service.runner().isRunning(job.id)) {
            m_service.session().attributions().setProgress(job.result, job.method, f);
        }
    }
}

bool AttributionJobs::isBusy() const {
    const JobRunner& runner = m_service.runner();
    return runner.isRunning(JobKind::Attribution) || runner.isRunning(JobKind::FlowAttribution) ||
           runner.isRunning(JobKind::ValueZeroingAttribution);
}

forward::ForwardOptions AttributionJobs::options() const {
    const AnalysisSession& session = m_service.session();
    forward::ForwardOptions options;
    options.mask = session.mask();
    options.scale = session.scale();
    options.whatIf = session.attentionWhatIf();
    options.mapBudgetBytes = session.mapBudgetBytes();
    return options;
}

void AttributionJobs::compute(AttributionMethod method) {
    AnalysisSession& session = m_service.session();
    const auto model = session.model();
    const ResultPtr clean = session.cleanResult();
    if (m_service.isShutDown() || !model || !clean ||
        m_service.refused(tr("Attribution methods"))) {
        return;
    }
    const forward::ForwardOptions options = this->options();
    const bool slow = analysis::isSlow(method);
    auto fraction = std::make_shared<std::atomic<double>>(-1.0);
    const JobKind kind = method == AttributionMethod::Flow ? JobKind::FlowAttribution
                         : method == AttributionMethod::ValueZeroing
                             ? JobKind::ValueZeroingAttribution
                             : JobKind::Attribution;
    const quint64 id = m_service.runner().run(
        kind, slow ? m_service.backgroundPool() : m_service.headRecordPool(),
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
            return [this, clean, method, maps] {
                m_service.session().attributions().set(clean, method, maps);
            };
        },
        [this, clean, method](const JobEnd& end) {
            std::erase_if(m_jobs,
                          [this](const Job& job) { return !m_service.runner().isRunning(job.id); });
            if (end.status == JobEnd::Failed) {
                m_service.session().attributions().setFailed(clean, method, end.error);
            }
        });
    if (id != 0) {
        m_jobs.push_back({method, clean, id, std::move(fraction)});
    }
}

void AttributionJobs::cancel(AttributionMethod method) {
    for (const Job& job : m_jobs) {
        if (job.method == method) {
            m_service.runner().cancel(job.id);
        }
    }
}

// Jobs of an earlier clean pass are wanted by nobody: the session dropped their states.
void AttributionJobs::cancelStale() {
    const ResultPtr clean = m_service.session().cleanResult();
    for (const Job& job : m_jobs) {
        if (job.result != clean) {
            m_service.runner().cancel(job.id);
        }
    }
}

bool AttributionJobs::exportTo(const QString& path) {
    AnalysisSession& session = m_service.session();
    const auto model = session.model();
    const ResultPtr clean = session.cleanResult();
    if (!model || !clean) {
        session.reportError(tr("Nothing to export yet: type a sentence first."));
        return false;
    }
    if (m_service.refused(tr("Attribution export"))) {
        return false;
    }
    // The maps the session holds: a slow method is not started behind the user's back.
    std::vector<AttributionPtr> held;
    for (const AttributionMethod m : analysis::kAttributionMethods) {
        if (const AttributionPtr maps = session.attributions().state(m).maps) {
            held.push_back(maps);
        }
    }
    exporting::AttributionFileInfo info;
    info.model = session.modelPath().toStdString();
    info.modelType = model->spec.modelType;
    info.maskKind = clean->forward.maskKind;
    info.text = clean->text;
    info.tokenIds = clean->forward.tokenIds;
    for (const tokenize::Token& t : clean->tokens) {
        info.tokens.push_back(t.text);
    }
    const forward::ForwardOptions options = this->options();
    m_service.exportFile(path, [model, clean, held, info, options](const std::string& file) {
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
