// ComputeService's head importance job (issue 17), apart from compute_service.cpp: it reads the
// corpus, builds the masked (or next-token) items and runs analysis::headImportance on the share
// pool.
#include <algorithm>

#include <QFileInfo>

#include "service/compute_service.h"
#include "service/share_executor.h"

namespace attnscope::app {

namespace {

constexpr std::size_t kImportanceShares = 2;  // the share pool's threads
// The core reports the fraction of its passes done. Its shares split the sentences, not the
// heads, so every head advances together and "head 37 of 144" would be untrue: the panel shows
// a percentage.
constexpr int kProgressSteps = 1000;

}  // namespace

void ComputeService::computeImportance(const QString& path, const ImportanceRequest& request) {
    const auto model = m_session->model();
    if (m_shutDown || !model || refused(tr("Head importance"))) {
        return;
    }
    const std::shared_ptr<const Treebank> known = knownTreebank(path);
    QThreadPool* shares = &m_sharePool;
    emit importanceStarted(path);
    m_jobs.run(
        JobKind::Importance, &m_backgroundPool,
        [this, model, path, request, known, shares](const CancelToken& cancel,
                                                    JobProgress& progress) -> JobRunner::ApplyStep {
            std::size_t inFile = 0;
            std::vector<std::string> sentences =
                importanceSentences(path, known ? &known->texts : nullptr, request, &inFile);
            cancel.throwIfCancelled();  // reading has no cancel checks of its own
            progress.total = kProgressSteps;
            const ProgressFn onProgress = [&progress](double fraction) {
                progress.done = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * kProgressSteps);
            };
            auto run = std::make_shared<const ImportanceRun>(
                computeImportanceRun(model, path, std::move(sentences), inFile, request, cancel,
                                     onProgress, kImportanceShares, onSharePool(shares)));
            return [this, run] { m_session->setImportance(run); };
        },
        [this, path](const JobEnd& end) {
            const QString file = QFileInfo(path).fileName();
            // The reader's errors name the file and line; the core's do not, so the file comes
            // first.
            reportCorpusJobEnd(
                end, tr("Head importance on %1 failed: ").arg(file),
                tr("Head importance on %1 cancelled; the previous results stay.").arg(file));
            if (!isComputingImportance()) {
                emit importanceFinished(end.status == JobEnd::Applied);
            }
        });
}

void ComputeService::cancelImportance() {
    m_jobs.cancelKind(JobKind::Importance);
}

}  // namespace attnscope::app
