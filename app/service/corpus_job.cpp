#include "service/corpus_job.h"

#include <algorithm>

#include "service/compute_service.h"
#include "service/share_executor.h"

namespace attnscope::app {

CorpusJob::CorpusJob(ComputeService& service, QString feature)
    : m_service(service), m_feature(std::move(feature)), m_kind(service.runner().newKind()) {
    connect(&service.runner(), &JobRunner::progress, this,
            [this](JobKind kind, int done, int total) {
                if (kind == m_kind) {
                    emit progress(done, total);
                }
            });
    // The session drops the old model's results anyway.
    connect(&session(), &AnalysisSession::modelChanged, this,
            [this] { m_service.runner().dropKind(m_kind); });
}

void CorpusJob::cancel() {
    m_service.runner().cancelKind(m_kind);
}

bool CorpusJob::isRunning() const {
    return m_service.runner().isRunning(m_kind);
}

AnalysisSession& CorpusJob::session() const {
    return m_service.session();
}

std::shared_ptr<const model::Model> CorpusJob::model() const {
    return session().model();
}

std::shared_ptr<const Treebank> CorpusJob::knownTreebank(const QString& path) const {
    std::shared_ptr<const Treebank> known = session().treebank();
    return known && known->path == path ? known : nullptr;
}

ProgressFn CorpusJob::passesDone(JobProgress& progress) {
    constexpr int kSteps = 1000;
    return [&progress](double fraction) {
        progress.total = kSteps;
        progress.done = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * kSteps);
    };
}

analysis::ShareExecutor CorpusJob::shares() const {
    return onSharePool(m_service.sharePool());
}

void CorpusJob::start(const QString& path, Work work, EndText text) {
    if (m_service.isShutDown() || !model() || m_service.refused(m_feature)) {
        return;
    }
    emit started(path);
    m_service.runner().run(
        m_kind, m_service.backgroundPool(), std::move(work),
        [this, text = std::move(text)](const JobEnd& end) {
            if (end.status == JobEnd::Failed) {
                session().reportError(text.failed + end.error);
            } else if (end.status == JobEnd::Cancelled && !m_service.isShutDown()) {
                session().reportNote(text.cancelled);  // the user's doing, not a failure
            }
            if (!isRunning()) {
                emit finished(end.status == JobEnd::Applied);
            }
        });
}

}  // namespace attnscope::app
