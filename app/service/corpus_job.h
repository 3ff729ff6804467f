// One corpus analysis's background job — dependency and coreference scoring, head importance,
// the head survey (analyses/<name>/<name>_job.h): it reads a corpus (or reuses the session's
// treebank), runs on the ComputeService's background pool with its shares on the share pool,
// and hands its result to the analysis's document. Each kind has a job kind of its own in the
// service's one runner: a newer start replaces a running one, a new model drops it, the others
// go on beside it. A failure or a cancel goes to the message bar. The service makes one of each
// on first use (ComputeService::job<T>()) and owns it.
#pragma once

#include <functional>
#include <memory>

#include <QObject>
#include <QString>

#include "attnscope/analysis/treebank_scoring.h"
#include "service/job_runner.h"
#include "session/treebank.h"

namespace attnscope::app {

class AnalysisSession;
class ComputeService;

class CorpusJob : public QObject {
    Q_OBJECT

public:
    // `feature` names the job where a model cannot run it ("Head survey: …").
    CorpusJob(ComputeService& service, QString feature);

    void cancel();
    bool isRunning() const;

signals:
    void started(const QString& path);
    // How much is done, in the job's own unit (sentences, windows, thousandths of the passes);
    // total 0 while the corpus is read.
    void progress(int done, int total);
    void finished(bool ok);  // ok false: failed, cancelled or replaced

protected:
    using Work = std::function<JobRunner::ApplyStep(const CancelToken&, JobProgress&)>;

    // What a run's end says on the message bar: `failed` followed by the error, or `cancelled`.
    struct EndText {
        QString failed;
        QString cancelled;
    };

    // Runs `work` for the file at `path` unless the service is shut down, no model is open or
    // the model cannot run the feature (the message bar says why).
    void start(const QString& path, Work work, EndText text);

    AnalysisSession& session() const;
    // The session's model; null when none is open.
    std::shared_ptr<const model::Model> model() const;
    // The session's treebank when it is the file at `path` (already read: not read again).
    std::shared_ptr<const Treebank> knownTreebank(const QString& path) const;
    // Runs a job's shares on the service's share pool.
    analysis::ShareExecutor shares() const;

    static constexpr int kShares = 2;  // the share pool's threads

    // For a core run that reports the fraction of its passes done (importance, the survey): the
    // bar counts thousandths, since no head is ever "done" before the others. `total` stays 0
    // (reading) until the first report.
    static ProgressFn passesDone(JobProgress& progress);

private:
    ComputeService& m_service;
    QString m_feature;
    JobKind m_kind;
};

}  // namespace attnscope::app
