// The ComputeService's recomputation of heads for sentences whose maps did not fit the memory
// budget (session/head_records.h asks; this answers), one at a time on the service's head pool,
// in the order asked. Jobs of an earlier result are skipped; jobs of an older request round (the
// views moved on) are dropped before they start; a running job is cancelled as soon as the
// session shows another result. A cancelled job tells the session nothing.
#pragma once

#include <deque>
#include <memory>
#include <optional>

#include <QObject>

#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/base/head_id.h"
#include "attnscope/model/model.h"
#include "service/job_runner.h"

class QThreadPool;

namespace attnscope::app {

class AnalysisSession;

class HeadRecordJobs : public QObject {
    Q_OBJECT

public:
    HeadRecordJobs(AnalysisSession& session, JobRunner& jobs, QThreadPool& pool);

    // True while a head record is being recomputed or waits to be.
    bool isBusy() const { return m_running || !m_queue.empty(); }

    // Forgets what waits and asks nothing more (the runner cancels what runs).
    void shutdown();

signals:
    void started(attnscope::HeadId head);
    void finished(attnscope::HeadId head, bool cancelled);

private:
    struct Job {
        HeadId head;
        quint64 round = 0;  // the session's head record round when asked
        std::shared_ptr<const model::Model> model;
        std::shared_ptr<const analysis::SentenceAnalysis> result;
        quint64 id = 0;  // the runner's job, once started
    };

    void queue(HeadId head);
    void cancelStale();
    void startNext();
    void run(Job job);

    AnalysisSession& m_session;
    JobRunner& m_jobs;
    QThreadPool& m_pool;
    std::deque<Job> m_queue;  // oldest first
    std::optional<Job> m_running;
    bool m_startPosted = false;
    bool m_shutDown = false;
};

}  // namespace attnscope::app
