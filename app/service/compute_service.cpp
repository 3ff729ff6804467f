#include "service/compute_service.h"

#include <QFutureWatcher>
#include <QPromise>
#include <QtConcurrent>

#include "attnscope/base/error.h"

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
    connect(session, &AnalysisSession::textChanged, this, &ComputeService::scheduleCompute);
    connect(session, &AnalysisSession::computeSettingsChanged, this,
            &ComputeService::scheduleCompute);
}

ComputeService::~ComputeService() {
    m_runningToken.cancel();
    m_loadToken.cancel();
    m_thread.quit();
    m_thread.wait();
}

void ComputeService::openModel(const QString& path) {
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

}  // namespace attnscope::app
