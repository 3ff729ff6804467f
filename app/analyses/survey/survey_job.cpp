#include "analyses/survey/survey_job.h"

#include <QFileInfo>

#include "session/analysis_session.h"

namespace attnscope::app {

SurveyJob::SurveyJob(ComputeService& service) : CorpusJob(service, tr("Head survey")) {}

void SurveyJob::start(const QString& path, const SurveyRequest& request) {
    const auto model = this->model();
    const std::shared_ptr<const Treebank> known = knownTreebank(path);
    analysis::ShareExecutor onShares = shares();
    Work work = [this, model, path, request, known, onShares](
                    const CancelToken& cancel, JobProgress& progress) -> JobRunner::ApplyStep {
        auto run = std::make_shared<const SurveyRun>(
            computeSurveyRun(model, path, known ? &known->sentences : nullptr, request, cancel,
                             passesDone(progress), kShares, onShares));
        return [this, run] { session().document<SurveyDocument>().setRun(run); };
    };
    // The reader's errors name the file and line; the core's do not, so the file comes first.
    const QString file = QFileInfo(path).fileName();
    CorpusJob::start(path, std::move(work),
                     {tr("Head survey on %1 failed: ").arg(file),
                      tr("Head survey on %1 cancelled; the previous results stay.").arg(file)});
}

}  // namespace attnscope::app
