#include "service/job_runner.h"

#include <new>

#include <QFutureWatcher>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include "attnscope/base/error.h"

namespace attnscope::app {

namespace {

constexpr int kProgressMilliseconds = 100;

bool newestWins(JobKind kind) {
    return kind != JobKind::HeadRecord && kind != JobKind::Export && kind != JobKind::Attribution;
}

struct Outcome {
    JobRunner::ApplyStep apply;  // empty on failure or cancel
    QString error;
    bool cancelled = false;
};

// The one catch site of background work. Qt 6.4's QtConcurrent would otherwise wrap an escaping
// exception in QUnhandledException and rethrow it on the GUI thread.
Outcome runCaught(const JobRunner::Work& work, const CancelToken& cancel, JobProgress& progress) {
    try {
        cancel.throwIfCancelled();  // superseded while queued: start nothing
        return {work(cancel, progress), {}};
    } catch (const Cancelled&) {
        return {{}, {}, true};
    } catch (const Error& e) {
        return {{}, QString::fromStdString(e.what())};
    } catch (const std::bad_alloc&) {
        return {{},
                QStringLiteral("out of memory: this needs more memory than is free (try a shorter "
                               "sentence, a smaller model or a lower memory budget)")};
    } catch (const std::exception& e) {
        return {{}, QStringLiteral("internal error: ").append(QString::fromStdString(e.what()))};
    } catch (...) {
        return {{}, QStringLiteral("internal error")};
    }
}

}  // namespace

JobRunner::JobRunner(QObject* parent) : QObject(parent), m_timer(new QTimer(this)) {
    m_timer->setInterval(kProgressMilliseconds);
    connect(m_timer, &QTimer::timeout, this, &JobRunner::pollProgress);
}

quint64 JobRunner::run(JobKind kind, QThreadPool* pool, Work work, Finished finished) {
    if (m_shutDown) {
        return 0;
    }
    const quint64 id = ++m_nextId;
    if (newestWins(kind)) {
        dropKind(kind);
        m_newest[kind] = id;
    }
    Job job{kind, CancelToken(), std::make_shared<JobProgress>(), std::move(finished)};
    const CancelToken cancel = job.cancel;
    const std::shared_ptr<JobProgress> progress = job.progress;
    m_jobs.emplace(id, std::move(job));
    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id] {
        watcher->deleteLater();
        Outcome outcome = watcher->result();
        JobEnd end;
        end.status = outcome.apply       ? JobEnd::Applied
                     : outcome.cancelled ? JobEnd::Cancelled
                                         : JobEnd::Failed;
        end.error = outcome.error;
        finish(id, std::move(outcome.apply), end);
    });
    // The work holds its own references to what it reads (models, results), so they outlive it
    // whatever the user opens meanwhile.
    watcher->setFuture(QtConcurrent::run(pool, [work = std::move(work), cancel, progress] {
        return runCaught(work, cancel, *progress);
    }));
    m_timer->start();
    return id;
}

void JobRunner::finish(quint64 id, ApplyStep apply, const JobEnd& end) {
    const auto it = m_jobs.find(id);
    if (it == m_jobs.end()) {
        return;
    }
    const Job job = std::move(it->second);
    m_jobs.erase(it);
    if (m_jobs.empty()) {
        m_timer->stop();
    }
    JobEnd told = end;
    const auto newest = m_newest.find(job.kind);
    if (m_shutDown) {
        told = {JobEnd::Cancelled, {}};  // whatever it brought: nothing is applied any more
    } else if (newestWins(job.kind) && (newest == m_newest.end() || newest->second != id)) {
        told = {JobEnd::Superseded, {}};
    } else if (apply) {
        apply();
    }
    if (newest != m_newest.end() && newest->second == id) {
        m_newest.erase(newest);
    }
    if (job.finished) {
        job.finished(told);
    }
}

void JobRunner::cancel(quint64 id) {
    const auto it = m_jobs.find(id);
    if (it == m_jobs.end()) {
        return;
    }
    it->second.cancel.cancel();
}

void JobRunner::cancelKind(JobKind kind) {
    for (auto& [id, job] : m_jobs) {
        if (job.kind == kind) {
            job.cancel.cancel();
        }
    }
}

void JobRunner::dropKind(JobKind kind) {
    cancelKind(kind);
    m_newest.erase(kind);  // their answers, should they still come, are no longer wanted
}

bool JobRunner::isRunning(JobKind kind) const {
    for (const auto& [id, job] : m_jobs) {
        if (job.kind == kind) {
            return true;
        }
    }
    return false;
}

void JobRunner::shutdown() {
    m_shutDown = true;
    for (auto& [id, job] : m_jobs) {
        job.cancel.cancel();
    }
    m_timer->stop();
}

void JobRunner::pollProgress() {
    for (const auto& [id, job] : m_jobs) {
        emit progress(job.kind, job.progress->done.load(), job.progress->total.load());
    }
}

}  // namespace attnscope::app
