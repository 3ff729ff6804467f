#include "analyses/coref/coref_job.h"

#include <QFileInfo>

#include "analyses/coref/coref_document.h"
#include "session/analysis_session.h"

namespace attnscope::app {

CorefJob::CorefJob(ComputeService& service) : CorpusJob(service, tr("Coreference scoring")) {}

void CorefJob::start(const QString& path, const analysis::CorefScoreOptions& options) {
    const auto model = this->model();
    std::shared_ptr<const analysis::CorefCorpus> known =
        session().document<CorefDocument>().corpus();
    if (known && QString::fromStdString(known->path) != path) {
        known.reset();
    }
    analysis::ShareExecutor onShares = shares();
    Work work = [this, model, path, options, known, onShares](
                    const CancelToken& cancel, JobProgress& progress) -> JobRunner::ApplyStep {
        auto corpus = known ? known
                            : std::make_shared<const analysis::CorefCorpus>(
                                  analysis::CorefCorpus::read(path.toStdString()));
        cancel.throwIfCancelled();  // reading has no cancel checks of its own
        analysis::CorefWindows windows = analysis::cutWindows(*model, *corpus, options, cancel);
        progress.total = static_cast<int>(windows.windows.size());
        analysis::CorefShares how;
        how.shares = kShares;
        how.cancel = cancel;
        how.windowDone = [&progress] { progress.done.fetch_add(1); };
        analysis::CorefAccumulator counts =
            analysis::scoreCoref(*model, *corpus, windows, options, how, onShares);
        auto scores = std::make_shared<const CorefScores>(
            makeCorefScores(corpus, model, options, std::move(windows), std::move(counts)));
        return [this, scores] { session().document<CorefDocument>().setScores(scores); };
    };
    // The reader's errors name the file; "no tokenizer" and the like do not.
    const QString file = QFileInfo(path).fileName();
    CorpusJob::start(
        path, std::move(work),
        {tr("Coreference scoring of %1 failed: ").arg(file),
         tr("Coreference scoring of %1 cancelled; the previous results stay.").arg(file)});
}

}  // namespace attnscope::app
