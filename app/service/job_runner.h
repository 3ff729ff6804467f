// The one place where AttnScope's background work runs and where its exceptions stop. A job is
// a function run on a pool thread that returns the step applying its result, which then runs on
// the GUI thread, but only while the job is still wanted: kinds whose newest job wins (a new
// sentence, a new load) drop the answers of older ones. Every job has a cancel token (the core
// checks it between layers, sentences or tensors) and a progress pair that workers write and a
// GUI-thread timer reads, so workers never touch a QObject. Owned by the ComputeService, which
// decides the pools; GUI thread only.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>

#include <QObject>
#include <QString>

#include "attnscope/base/cancel.h"

class QThreadPool;
class QTimer;

namespace attnscope::app {

// The app's own kinds of work; each corpus analysis's job has a kind of its own beyond them
// (JobRunner::newKind), so that none replaces another.
enum class JobKind : int {
    Load,
    Forward,
    Predictions,
    HeadRecord,
    Export,
    Attribution,  // a fast attribution method (issue 19): each asked for runs
    // Flow and value zeroing, apart so that the Methods tab can compute the two side by side;
    // within each the newest request wins.
    FlowAttribution,
    ValueZeroingAttribution,
    Translate,  // greedy decoding of an encoder-decoder's target (issue 20); newest wins
    FirstOwnKind
};

// Written by the worker, read by the GUI thread's timer; total 0 while unknown.
struct JobProgress {
    std::atomic<int> done{0};
    std::atomic<int> total{0};
};

// How a job ended, as its `finished` callback is told.
struct JobEnd {
    enum Status { Applied, Failed, Cancelled, Superseded };

    Status status = Applied;
    QString error;  // for Failed: the core's message (or "out of memory: …", "internal error: …")
};

class JobRunner : public QObject {
    Q_OBJECT

public:
    using ApplyStep = std::function<void()>;
    using Work = std::function<ApplyStep(const CancelToken&, JobProgress&)>;
    using Finished = std::function<void(const JobEnd&)>;

    explicit JobRunner(QObject* parent = nullptr);

    // A kind no other job has, whose newest job wins (a corpus analysis's job).
    JobKind newKind() { return static_cast<JobKind>(m_nextKind++); }

    // Runs `work` on `pool`; afterwards, on the GUI thread, its apply step (if it succeeded and
    // is still wanted) and then `finished`. For Load, Forward, Predictions and both scorings the
    // newest job wins: starting one cancels the older job of its kind, whose end is Superseded.
    // Returns the job's id (0 after shutdown: nothing runs).
    quint64 run(JobKind kind, QThreadPool* pool, Work work, Finished finished = {});

    // Cancels one job, or every job of a kind (the user's Cancel): each ends as Cancelled, or
    // Applied when it finished before its next cancel check.
    void cancel(quint64 id);
    void cancelKind(JobKind kind);
    // Cancels every job of a kind and drops their answers: each ends as Superseded.
    void dropKind(JobKind kind);

    bool isRunning(JobKind kind) const;

    bool isRunning(quint64 id) const { return m_jobs.contains(id); }

    // Cancels everything; nothing more starts and no apply step runs (jobs that end afterwards
    // are told Cancelled). The pools' owner then waits for the workers, which stop at their next
    // cancel check.
    void shutdown();

signals:
    void progress(attnscope::app::JobKind kind, int done, int total);

private:
    int m_nextKind = static_cast<int>(JobKind::FirstOwnKind);

    struct Job {
        JobKind kind;
        CancelToken cancel;
        std::shared_ptr<JobProgress> progress;
        Finished finished;
    };

    void finish(quint64 id, ApplyStep apply, const JobEnd& end);
    void pollProgress();

    std::map<quint64, Job> m_jobs;
    std::map<JobKind, quint64> m_newest;  // of the newest-wins kinds
    quint64 m_nextId = 0;
    QTimer* m_timer;
    bool m_shutDown = false;
};

}  // namespace attnscope::app
