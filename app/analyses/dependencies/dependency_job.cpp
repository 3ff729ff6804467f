#include "analyses/dependencies/dependency_job.h"

#include "analyses/dependencies/dependency_document.h"
#include "attnscope/analysis/treebank_scoring.h"
#include "session/analysis_session.h"

namespace attnscope::app {

DependencyJob::DependencyJob(ComputeService& service)
    : CorpusJob(service, tr("Dependency scoring")) {}

void DependencyJob::start(const QString& path, const analysis::ScoreOptions& options) {
    const auto model = this->model();
    const std::shared_ptr<const Treebank> known = knownTreebank(path);
    analysis::ShareExecutor onShares = shares();
    Work work = [this, model, path, options, known, onShares](
                    const CancelToken& cancel, JobProgress& progress) -> JobRunner::ApplyStep {
        std::shared_ptr<const Treebank> treebank =
            known ? known : std::make_shared<const Treebank>(Treebank::read(path, cancel));
        progress.total = static_cast<int>(treebank->sentences.size());
        analysis::TreebankShares how;
        how.shares = kShares;
        how.cancel = cancel;
        how.sentenceDone = [&progress] { progress.done.fetch_add(1); };
        auto counts = analysis::scoreTreebank(*model, treebank->sentences, options, how, onShares);
        auto scores = std::make_shared<const DependencyScores>(
            DependencyScores{treebank, model, std::move(counts)});
        return [this, scores] { session().document<DependencyDocument>().setScores(scores); };
    };
    CorpusJob::start(path, std::move(work),
                     {tr("Dependency scoring failed: "),
                      tr("Dependency scoring cancelled; the previous results stay.")});
}

}  // namespace attnscope::app
