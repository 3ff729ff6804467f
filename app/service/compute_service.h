// The GUI thread's façade over background work. Owns one ComputeWorker on its own QThread
// for forward passes, and loads models with QtConcurrent. Watches the session: any change of
// model, text or settings schedules a recompute. At most one request runs and one waits; a
// newer request cancels the running one (checked between layers) and replaces the waiting
// one, and results of superseded generations are dropped. Errors go to the session's message
// bar; the previous model and result stay. Shutdown: cancel, quit, wait.
//
// Head records: when a sentence's maps did not fit the memory budget, the session asks for a
// head (AnalysisSession::headRecordRequested) and this recomputes it on a pool of its own, one
// head at a time, in the order asked (the global pool also serves Qt's own image work, which a
// slow head must not hold up). A job holds the model and the result it reads, so
// both outlive it whatever the user opens meanwhile. Before a job starts it is skipped when the
// session has moved to another result, and dropped when the views have moved on to another
// round of heads (headRequestRound). Its answer, record or error, goes back to the session,
// which keeps it only while that result is still the current one. A running job is cancelled
// (recomputeHead's token) as soon as the session shows another result, since its answer would
// be dropped; it is not cancelled when the views move to another head, since the session keeps
// that answer among its recent heads. A cancelled job tells the session nothing: it is not an
// error, and the views already ask for the new result's heads.
//
// Shutdown (also the destructor's first step) cancels the forward pass, the load and the head
// job, and starts nothing more; the destructor then waits for their next cancel check.
#pragma once

#include <deque>
#include <optional>

#include <QFuture>
#include <QObject>
#include <QThread>
#include <QThreadPool>

#include "attnscope/base/cancel.h"
#include "service/compute_worker.h"
#include "session/analysis_session.h"

namespace attnscope::app {

class ComputeService : public QObject {
    Q_OBJECT

public:
    explicit ComputeService(AnalysisSession* session, QObject* parent = nullptr);
    ~ComputeService() override;

    // Cancels all running work and drops waiting work without blocking; later requests are
    // ignored. For closing the app (the destructor calls it) and for tests.
    void shutdown();

    // Loads a model folder in the background; on success it replaces the session's model.
    void openModel(const QString& path);
    void cancelLoad();

    bool isLoading() const { return m_loading; }

    bool isComputing() const { return m_running.has_value(); }

    // Median-worthy timing of the last finished forward pass, in milliseconds.
    double lastComputeMilliseconds() const { return m_lastMs; }

    // True while a head record is being recomputed or waits to be.
    bool isComputingHeadRecords() const { return m_runningHead || !m_headQueue.empty(); }

    // The one thread head records are recomputed on; tests occupy it to hold a job in flight.
    QThreadPool* headRecordPool() { return &m_headPool; }

signals:
    void loadStarted(const QString& path);
    void loadProgress(double fraction);
    void loadFinished(bool ok, const QString& path);
    void computeStarted();
    void computeFinished(double milliseconds);  // a result reached the session
    void idle();                                // nothing running, nothing waiting
    void requestCompute(const attnscope::app::ComputeRequest& request);  // to the worker
    void headRecordStarted(attnscope::HeadId head);
    // The job started for `head` ended: its record or error went to the session, or it was
    // cancelled (a stale result, or shutdown) and nothing did.
    void headRecordFinished(attnscope::HeadId head, bool cancelled);

private:
    void scheduleCompute();
    void dispatchPending();
    void onComputed(quint64 generation, std::shared_ptr<const analysis::SentenceAnalysis> result,
                    double ms);
    void onFailed(quint64 generation, const QString& message);
    void onCancelled(quint64 generation);
    void finishRunning(quint64 generation);

    struct HeadJob {
        HeadId head;
        quint64 round = 0;  // the session's headRequestRound when asked
        std::shared_ptr<const model::Model> model;
        std::shared_ptr<const analysis::SentenceAnalysis> result;
        CancelToken cancel;
    };

    void queueHeadRecord(HeadId head);
    void cancelStaleHeadRecords();
    void startNextHeadRecord();
    void runHeadRecord(HeadJob job);

    AnalysisSession* m_session;
    QThread m_thread;
    ComputeWorker* m_worker;
    quint64 m_generation = 0;
    std::optional<quint64> m_running;
    CancelToken m_runningToken;
    std::optional<ComputeRequest> m_pending;
    bool m_loading = false;
    CancelToken m_loadToken;
    quint64 m_loadGeneration = 0;
    double m_lastMs = 0;
    QThreadPool m_headPool;
    std::deque<HeadJob> m_headQueue;  // oldest first
    std::optional<HeadJob> m_runningHead;
    bool m_headStartPosted = false;
    bool m_shutDown = false;
};

}  // namespace attnscope::app
