#include "analyses/importance/importance_job.h"

#include <QFileInfo>

#include "session/analysis_session.h"

namespace attnscope::app {

ImportanceJob::ImportanceJob(ComputeService& service) : CorpusJob(service, tr("Head importance")) {}

void ImportanceJob::start(const QString& path, const ImportanceRequest& request) {
    const auto model = this->model();
    const std::shared_ptr<const Treebank> known = knownTreebank(path);
    analysis::ShareExecutor onShares = shares();
    Work work = [this, model, path, request, known, onShares](
                    const CancelToken& cancel, JobProgress& progress) -> JobRunner::ApplyStep {
        std::size_t inFile = 0;
        std::vector<std::string> sentences =
            importanceSentences(path, known ? &known->texts : nullptr, request, &inFile);
        cancel.throwIfCancelled();  // reading has no cancel checks of its own
        const ProgressFn onProgress = passesDone(progress);
        onProgress(0);  // read: the passes start
        auto run = std::make_shared<const ImportanceRun>(
            computeImportanceRun(model, path, std::move(sentences), inFile, request, cancel,
                                 onProgress, kShares, onShares));
        return [this, run] { session().document<ImportanceDocument>().setRun(run); };
    };
    // The reader's errors name the file and line; the core's do not, so the file comes first.
    const QString file = QFileInfo(path).fileName();
    CorpusJob::start(path, std::move(work),
                     {tr("Head importance on %1 failed: ").arg(file),
                      tr("Head importance on %1 cancelled; the previous results stay.").arg(file)});
}

}  // namespace attnscope::app
