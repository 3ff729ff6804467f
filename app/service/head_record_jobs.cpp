#include "service/head_record_jobs.h"

#include <QMetaObject>

#include "attnscope/forward/head_record.h"
#include "session/analysis_session.h"

namespace attnscope::app {

HeadRecordJobs::HeadRecordJobs(AnalysisSession& session, JobRunner& jobs, QThreadPool& pool)
    : m_session(session), m_jobs(jobs), m_pool(pool) {
    connect(&session.headRecords(), &HeadRecords::requested, this, &HeadRecordJobs::queue);
    connect(&session, &AnalysisSession::resultChanged, this, &HeadRecordJobs::cancelStale);
}

void HeadRecordJobs::shutdown() {
    m_shutDown = true;
    m_queue.clear();
}

void HeadRecordJobs::queue(HeadId head) {
    if (m_shutDown) {
        return;
    }
    const auto result = m_session.result();
    // Jobs about an earlier result are wanted by nobody; forget them now so the queue does not
    // keep old results alive while a slow head runs.
    std::erase_if(m_queue, [&result](const Job& job) { return job.result != result; });
    m_queue.push_back({head, m_session.headRecords().round(), m_session.model(), result});
    if (!m_startPosted) {
        // From the event loop: the asking view is mid-refresh, and every view of this round
        // gets to ask before older rounds are dropped.
        m_startPosted = true;
        QMetaObject::invokeMethod(this, &HeadRecordJobs::startNext, Qt::QueuedConnection);
    }
}

void HeadRecordJobs::cancelStale() {
    // Not on a new text or setting: the shown result stays until the new one arrives (or
    // forever, should that pass fail), and so does the wish for its heads.
    const auto result = m_session.result();
    std::erase_if(m_queue, [&result](const Job& job) { return job.result != result; });
    if (m_running && m_running->result != result) {
        m_jobs.cancel(m_running->id);
    }
}

void HeadRecordJobs::startNext() {
    m_startPosted = false;
    HeadRecords& records = m_session.headRecords();
    while (!m_running && !m_queue.empty()) {
        Job job = std::move(m_queue.front());
        m_queue.pop_front();
        if (job.result != m_session.result()) {
            continue;  // a new sentence, setting or model
        }
        if (job.round != records.round()) {
            records.dropRequest(job.result, job.head);  // the views moved on
            continue;
        }
        if (records.waitsFor(job.head)) {  // else an earlier job brought it
            run(std::move(job));
        }
    }
}

void HeadRecordJobs::run(Job job) {
    m_running = job;
    emit started(job.head);
    m_running->id = m_jobs.run(
        JobKind::HeadRecord, &m_pool,
        [this, job](const CancelToken& cancel, JobProgress&) -> JobRunner::ApplyStep {
            auto record = std::make_shared<const forward::HeadRecord>(
                forward::recomputeHead(*job.model, job.result->forward, job.head, cancel));
            return
                [this, job, record] { m_session.headRecords().set(job.result, job.head, record); };
        },
        [this](const JobEnd& end) {
            const Job done = std::move(*m_running);
            m_running.reset();
            if (end.status == JobEnd::Failed) {
                m_session.headRecords().setFailed(done.result, done.head, end.error);
            }
            emit finished(done.head, end.status == JobEnd::Cancelled);
            startNext();
        });
}

}  // namespace attnscope::app
