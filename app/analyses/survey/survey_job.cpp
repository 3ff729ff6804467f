// ComputeService's head survey job (issue 18), apart from compute_service.cpp: it reads the
// corpus (or takes the session's treebank), runs computeSurveyRun on the share pool and hands
// the run to the session.
#include <algorithm>

#include <QFileInfo>

#include "service/compute_service.h"
#include "service/share_executor.h"

namespace attnscope::app {

namespace {

constexpr std::size_t kSurveyShares = 2;  // the share pool's threads
// The core reports the fraction of its passes done, over sentences and the probe: a percentage,
// as for importance, since no head is ever "done" before the others.
constexpr int kProgressSteps = 1000;

}  // namespace

void ComputeService::computeSurvey(const QString& path, const SurveyRequest& request) {
    const auto model = m_session->model();
    if (m_shutDown || !model || refused(tr("Head survey"))) {
        return;
    }
    const std::shared_ptr<const Treebank> known = knownTreebank(path);
    QThreadPool* shares = &m_sharePool;
    emit surveyStarted(path);
    m_jobs.run(
        JobKind::Survey, &m_backgroundPool,
        [this, model, path, request, known, shares](const CancelToken& cancel,
                                                    JobProgress& progress) -> JobRunner::ApplyStep {
            // total stays 0 (reading) until the first pass reports.
            const ProgressFn onProgress = [&progress](double fraction) {
                progress.total = kProgressSteps;
                progress.done = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * kProgressSteps);
            };
            auto run = std::make_shared<const SurveyRun>(
                computeSurveyRun(model, path, known ? &known->sentences : nullptr, request, cancel,
                                 onProgress, kSurveyShares, onSharePool(shares)));
            return [this, run] { m_session->setSurvey(run); };
        },
        [this, path](const JobEnd& end) {
            const QString file = QFileInfo(path).fileName();
            // The reader's errors name the file and line; the core's do not, so the file comes
            // first.
            reportCorpusJobEnd(
                end, tr("Head survey on %1 failed: ").arg(file),
                tr("Head survey on %1 cancelled; the previous results stay.").arg(file));
            if (!isSurveying()) {
                emit surveyFinished(end.status == JobEnd::Applied);
            }
        });
}

void ComputeService::cancelSurvey() {
    m_jobs.cancelKind(JobKind::Survey);
}

}  // namespace attnscope::app
