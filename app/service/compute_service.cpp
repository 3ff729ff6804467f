#include "service/compute_service.h"

#include <QFutureWatcher>
#include <QPromise>
#include <QtConcurrent>

#include "attnscope/base/error.h"
#include "attnscope/forward/head_record.h"

namespace attnscope::app {

namespace {

using ModelPtr = std::shared_ptr<const model::Model>;

constexpr int kProgressSteps = 1000;

void loadInto(QPromise<ModelPtr>& promise, const QString& path, const CancelToken& token) {
    try {
        model::LoadOptions options;
        options.cancel = token;
        promise.setProgressRange(0, kProgressSteps);
        options.progress = [&promise](double f) {
            promise.setProgressValue(static_cast<int>(f * kProgressSteps));
        };
        promise.addResult(model::loadModel(path.toStdString(), options));
    } catch (...) {
        promise.setException(std::current_exception());
    }
}

struct HeadOutcome {
    std::shared_ptr<const forward::HeadRecord> record;  // null on failure or cancel
    QString error;
    bool cancelled = false;
};

// Every error caught here: QtConcurrent would wrap it in QUnhandledException.
HeadOutcome recomputeCaught(const model::Model& model, const forward::ForwardResult& forward,
                            HeadId head, const CancelToken& cancel) {
    try {
        return {std::make_shared<const forward::HeadRecord>(
                    forward::recomputeHead(model, forward, head, cancel)),
                {}};
    } catch (const Cancelled&) {
        return {nullptr, {}, true};
    } catch (const Error& e) {
        return {nullptr, QString::fromStdString(e.what())};
    } catch (const std::exception& e) {
        return {nullptr, QStringLiteral("internal error: ").append(e.what())};
    } catch (...) {
        return {nullptr, QStringLiteral("internal error")};
    }
}

}  // namespace

ComputeService::ComputeService(AnalysisSession* session, QObject* parent)
    : QObject(parent), m_session(session), m_worker(new ComputeWorker) {
    qRegisterMetaType<ComputeRequest>();
    qRegisterMetaType<std::shared_ptr<const analysis::SentenceAnalysis>>();
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(this, &ComputeService::requestCompute, m_worker, &ComputeWorker::compute);
    connect(m_worker, &ComputeWorker::computed, this, &ComputeService::onComputed);
    connect(m_worker, &ComputeWorker::failed, this, &ComputeService::onFailed);
    connect(m_worker, &ComputeWorker::cancelled, this, &ComputeService::onCancelled);
    m_thread.setObjectName(QStringLiteral("attnscope-compute"));
    m_thread.start();
    m_headPool.setMaxThreadCount(1);
    connect(session, &AnalysisSession::textChanged, this, &ComputeService::scheduleCompute);
    connect(session, &AnalysisSession::computeSettingsChanged, this,
            &ComputeService::scheduleCompute);
    connect(session, &AnalysisSession::headRecordRequested, this, &ComputeService::queueHeadRecord);
    connect(session, &AnalysisSession::resultChanged, this,
            &ComputeService::cancelStaleHeadRecords);
}

ComputeService::~ComputeService() {
    shutdown();
    m_thread.quit();
    m_thread.wait();
    // m_headPool's destructor then waits for the head job, which stops at its next check.
}

void ComputeService::shutdown() {
    // No m_session here: in MainWindow's destructor the session, an older sibling, is gone.
    m_shutDown = true;
    m_pending.reset();
    m_runningToken.cancel();
    m_loadToken.cancel();
    m_headQueue.clear();
    if (m_runningHead) {
        m_runningHead->cancel.cancel();
    }
}

void ComputeService::openModel(const QString& path) {
    if (m_shutDown) {
        return;
    }
    m_loadToken.cancel();
    m_loadToken = CancelToken();
    const quint64 generation = ++m_loadGeneration;
    m_loading = true;
    emit loadStarted(path);
    auto* watcher = new QFutureWatcher<ModelPtr>(this);
    connect(watcher, &QFutureWatcher<ModelPtr>::progressValueChanged, this,
            [this, generation](int v) {
                if (generation == m_loadGeneration) {
                    emit loadProgress(static_cast<double>(v) / kProgressSteps);
                }
            });
    connect(watcher, &QFutureWatcher<ModelPtr>::finished, this, [this, watcher, generation, path] {
        watcher->deleteLater();
        if (generation != m_loadGeneration) {
            return;  // a newer load replaced this one
        }
        m_loading = false;
        try {
            ModelPtr loaded = watcher->future().result();
            m_session->setModel(std::move(loaded), path);
            emit loadFinished(true, path);
        } catch (const Cancelled&) {
            emit loadFinished(false, path);
        } catch (const std::exception& e) {
            m_session->reportError(QStringLiteral("Could not open the model: %1")
                                       .arg(QString::fromStdString(e.what())));
            emit loadFinished(false, path);
        }
    });
    watcher->setFuture(QtConcurrent::run(loadInto, path, m_loadToken));
}

void ComputeService::cancelLoad() {
    m_loadToken.cancel();
}

void ComputeService::scheduleCompute() {
    if (m_shutDown) {
        return;
    }
    const auto model = m_session->model();
    const std::string text = m_session->text().toStdString();
    ++m_generation;
    m_pending.reset();
    m_runningToken.cancel();
    if (!model || m_session->text().trimmed().isEmpty()) {
        m_session->setResult(nullptr);
        if (!m_running) {
            emit idle();
        }
        return;
    }
    if (!model->tokenizer) {
        m_session->reportError(
            QStringLiteral("This model folder has no tokenizer, so typed text "
                           "cannot be turned into tokens."));
        return;
    }
    ComputeRequest request;
    request.generation = m_generation;
    request.model = model;
    request.text = text;
    request.options.mask = m_session->mask();
    request.options.scale = m_session->scale();
    request.options.mapBudgetBytes = m_session->mapBudgetBytes();
    m_pending = std::move(request);
    if (!m_running) {
        dispatchPending();
    }
}

void ComputeService::dispatchPending() {
    if (!m_pending) {
        emit idle();
        return;
    }
    m_running = m_pending->generation;
    m_runningToken = m_pending->options.cancel;
    emit computeStarted();
    emit requestCompute(*m_pending);
    m_pending.reset();
}

void ComputeService::onComputed(quint64 generation,
                                std::shared_ptr<const analysis::SentenceAnalysis> result,
                                double ms) {
    if (generation == m_generation) {
        m_lastMs = ms;
        m_session->setResult(std::move(result));
        emit computeFinished(ms);
    }
    finishRunning(generation);
}

void ComputeService::onFailed(quint64 generation, const QString& message) {
    if (generation == m_generation) {
        m_session->reportError(message);
    }
    finishRunning(generation);
}

void ComputeService::onCancelled(quint64 generation) {
    finishRunning(generation);
}

void ComputeService::finishRunning(quint64 generation) {
    if (m_running == generation) {
        m_running.reset();
    }
    if (!m_running) {
        dispatchPending();
    }
}

void ComputeService::queueHeadRecord(HeadId head) {
    if (m_shutDown) {
        return;
    }
    const auto result = m_session->result();
    // Jobs about an earlier result are wanted by nobody; forget them now so the queue does not
    // keep old results alive while a slow head runs.
    std::erase_if(m_headQueue, [&result](const HeadJob& job) { return job.result != result; });
    // A token of its own: cancelling a stale job must not touch the jobs after it.
    m_headQueue.push_back(
        {head, m_session->headRequestRound(), m_session->model(), result, CancelToken()});
    if (!m_headStartPosted) {
        // From the event loop: the asking view is mid-refresh, and every view of this round
        // gets to ask before older rounds are dropped.
        m_headStartPosted = true;
        QMetaObject::invokeMethod(this, &ComputeService::startNextHeadRecord, Qt::QueuedConnection);
    }
}

void ComputeService::cancelStaleHeadRecords() {
    // Not on a new text or setting: the shown result stays until the new one arrives (or
    // forever, should that pass fail), and so does the wish for its heads.
    const auto result = m_session->result();
    std::erase_if(m_headQueue, [&result](const HeadJob& job) { return job.result != result; });
    if (m_runningHead && m_runningHead->result != result) {
        m_runningHead->cancel.cancel();
    }
}

void ComputeService::startNextHeadRecord() {
    m_headStartPosted = false;
    while (!m_runningHead && !m_headQueue.empty()) {
        HeadJob job = std::move(m_headQueue.front());
        m_headQueue.pop_front();
        if (job.result != m_session->result()) {
            continue;  // a new sentence, setting or model
        }
        if (job.round != m_session->headRequestRound()) {
            m_session->dropHeadRecordRequest(job.result, job.head);  // the views moved on
            continue;
        }
        if (m_session->waitsForHeadRecord(job.head)) {  // else an earlier job brought it
            runHeadRecord(std::move(job));
        }
    }
}

void ComputeService::runHeadRecord(HeadJob job) {
    m_runningHead = job;
    emit headRecordStarted(job.head);
    auto* watcher = new QFutureWatcher<HeadOutcome>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
        watcher->deleteLater();
        const HeadJob done = std::move(*m_runningHead);
        m_runningHead.reset();
        const HeadOutcome outcome = watcher->result();
        if (outcome.record) {
            m_session->setHeadRecord(done.result, done.head, outcome.record);
        } else if (!outcome.cancelled) {
            m_session->setHeadRecordFailed(done.result, done.head, outcome.error);
        }
        emit headRecordFinished(done.head, outcome.cancelled);
        startNextHeadRecord();
    });
    // The job holds its own references to the model and the result it reads.
    watcher->setFuture(QtConcurrent::run(&m_headPool, [job] {
        return recomputeCaught(*job.model, job.result->forward, job.head, job.cancel);
    }));
}

}  // namespace attnscope::app
