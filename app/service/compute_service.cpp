#include "service/compute_service.h"

#include <algorithm>
#include <optional>

#include <QElapsedTimer>
#include <QFileInfo>

#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/analysis/treebank_scoring.h"
#include "attnscope/analysis/truncation.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/head_record.h"
#include "attnscope/forward/prediction.h"
#include "service/ablation_job.h"
#include "service/share_executor.h"

namespace attnscope::app {

namespace {

using ModelPtr = std::shared_ptr<const model::Model>;
using ResultPtr = std::shared_ptr<const analysis::SentenceAnalysis>;

constexpr int kLoadSteps = 1000;
constexpr int kScoringShares = 2;  // the machines AttnScope targets have two cores or more
constexpr int kTopPredictions = 5;

// The clean pass of the sentence field: its text, or the token ids a model without tokenizer
// reads (`ids`, issue 30). Input longer than the model's positions is cut when `truncate` is on
// (text at a token end, analysis/truncation.h; ids after the last that fits), else refused:
// null, with its token count in `tokenCount`.
ResultPtr cleanPass(const model::Model& model, const std::string& text,
                    const std::optional<std::vector<std::int32_t>>& ids, bool truncate,
                    const forward::ForwardOptions& options, std::size_t* tokenCount) {
    const auto limit = static_cast<std::size_t>(model.spec.maxTokens());
    if (ids) {
        *tokenCount = ids->size();
        if (ids->size() > limit && !truncate) {
            return nullptr;
        }
        const std::vector<std::int32_t> fitting(ids->begin(),
                                                ids->begin() + std::min(ids->size(), limit));
        return std::make_shared<const analysis::SentenceAnalysis>(
            analysis::analyzeIds(model, fitting, options));
    }
    std::string input = text;
    std::vector<tokenize::Token> tokens = model.tokenizer->encode(text);
    analysis::checkTextTokens(model, tokens);  // names a tokenizer that is not the model's
    *tokenCount = tokens.size();
    if (tokens.size() > limit) {
        if (!truncate) {
            return nullptr;
        }
        input = analysis::fittingPrefix(*model.tokenizer, text, tokens, limit);
        tokens = model.tokenizer->encode(input);
    }
    return std::make_shared<const analysis::SentenceAnalysis>(
        analysis::analyzeTokens(model, std::move(input), std::move(tokens), options));
}

}  // namespace

ComputeService::ComputeService(AnalysisSession* session, QObject* parent)
    : QObject(parent), m_session(session), m_headRecords(*session, m_jobs, m_headPool) {
    m_interactivePool.setMaxThreadCount(1);
    m_headPool.setMaxThreadCount(1);
    m_backgroundPool.setMaxThreadCount(2);
    m_sharePool.setMaxThreadCount(kScoringShares);
    for (QThreadPool* pool : {&m_interactivePool, &m_headPool, &m_backgroundPool, &m_sharePool}) {
        pool->setExpiryTimeout(-1);  // keep the threads: a sentence is typed a key at a time
    }
    connect(&m_jobs, &JobRunner::progress, this, &ComputeService::onProgress);
    connect(session, &AnalysisSession::textChanged, this, [this] {
        cancelTranslate();  // the newest source wins; its target is the user's again
        invalidateCleanPass();
    });
    connect(session, &AnalysisSession::targetTextChanged, this,
            &ComputeService::invalidateCleanPass);
    connect(session, &AnalysisSession::computeSettingsChanged, this, [this] {
        ++m_settingsGeneration;  // means of other settings no longer fit
        invalidateCleanPass();
    });
    connect(session, &AnalysisSession::ablationsChanged, this, &ComputeService::scheduleCompute);
    // Means over the treebank follow the treebank loaded.
    connect(session, &AnalysisSession::treebankChanged, this, [this] {
        if (ablationPlan().needsMeans()) {
            scheduleCompute();
        }
    });
    connect(&m_headRecords, &HeadRecordJobs::started, this, &ComputeService::headRecordStarted);
    connect(&m_headRecords, &HeadRecordJobs::finished, this, &ComputeService::headRecordFinished);
    connect(session, &AnalysisSession::resultChanged, this, [this] { schedulePredictions(); });
    connect(session, &AnalysisSession::selectedTokenChanged, this,
            &ComputeService::schedulePredictions);
    connect(session, &AnalysisSession::modelChanged, this, [this] {
        cancelTranslate();  // the corpus jobs drop their own (service/corpus_job.h)
    });
}

ComputeService::~ComputeService() {
    shutdown();
    // The background pool first: a scoring job there waits for its shares.
    m_backgroundPool.waitForDone();
    m_sharePool.waitForDone();
    m_interactivePool.waitForDone();
    m_headPool.waitForDone();
}

void ComputeService::shutdown() {
    // No m_session here: an owner may shut down while tearing the session down.
    m_shutDown = true;
    m_headRecords.shutdown();
    m_jobs.shutdown();
}

void ComputeService::openModel(const QString& path) {
    if (m_shutDown) {
        return;
    }
    emit loadStarted(path);
    m_jobs.run(
        JobKind::Load, &m_backgroundPool,
        [this, path](const CancelToken& cancel, JobProgress& progress) -> JobRunner::ApplyStep {
            model::LoadOptions options;
            options.cancel = cancel;
            progress.total = kLoadSteps;
            options.progress = [&progress](double f) {
                progress.done = static_cast<int>(f * kLoadSteps);
            };
            ModelPtr loaded = model::loadModel(path.toStdString(), options);
            return [this, loaded, path] { m_session->setModel(loaded, path); };
        },
        [this, path](const JobEnd& end) {
            if (end.status == JobEnd::Failed) {
                m_session->reportError(tr("Could not open the model: %1").arg(end.error));
            }
            if (end.status != JobEnd::Superseded) {
                emit loadFinished(end.status == JobEnd::Applied, path);
            }
        });
}

void ComputeService::cancelLoad() {
    m_jobs.cancelKind(JobKind::Load);
}

void ComputeService::invalidateCleanPass() {
    m_cleanPass.reset();
    scheduleCompute();
}

void ComputeService::scheduleCompute() {
    if (m_shutDown) {
        return;
    }
    const ModelPtr model = m_session->model();
    const TokenIdList& idInput = m_session->tokenIdInput();
    const bool noInput = m_session->takesTokenIds() ? idInput.ok() && idInput.ids.empty()
                                                    : m_session->text().trimmed().isEmpty();
    if (!model || noInput) {
        m_jobs.dropKind(JobKind::Forward);
        m_session->setResult(nullptr);
        if (!isComputing()) {
            emit idle();  // else when the dropped pass stops
        }
        return;
    }
    if (!model->tokenizer && !m_session->takesTokenIds()) {
        m_jobs.dropKind(JobKind::Forward);
        m_session->reportError(
            tr("This model folder has no tokenizer, so typed text cannot be turned into tokens."));
        return;
    }
    if (!idInput.ok()) {
        m_jobs.dropKind(JobKind::Forward);  // the sentence field says what is wrong
        return;
    }
    forward::ForwardOptions options;
    options.mask = m_session->mask();
    options.scale = m_session->scale();
    options.whatIf = m_session->attentionWhatIf();
    options.recordUnnormed = true;  // the saturation view's before-QK-norm maxima
    options.mapBudgetBytes = m_session->mapBudgetBytes();
    if (model->isEncoderDecoder()) {
        scheduleSeq2Seq(model, options);
        return;
    }
    options.keepLayerStates = true;  // so that an ablation restarts from its first layer
    const std::string text = m_session->text().toStdString();
    // Token ids instead of text: a model without tokenizer files (issue 30).
    const std::optional<std::vector<std::int32_t>> ids =
        m_session->takesTokenIds() ? std::optional(m_session->tokenIdInput().ids) : std::nullopt;
    const bool truncate = m_session->truncateLongInput();
    const ResultPtr cached = m_cleanPass;
    const AblationPlan plan = ablationPlan();
    emit computeStarted();
    m_jobs.run(
        JobKind::Forward, &m_interactivePool,
        [this, model, text, ids, options, truncate, cached, plan](
            const CancelToken& cancel, JobProgress&) -> JobRunner::ApplyStep {
            QElapsedTimer timer;
            timer.start();
            forward::ForwardOptions withCancel = options;
            withCancel.cancel = cancel;
            if (cached) {
                return applyAblated(*model, cached, false, withCancel, plan, timer);
            }
            std::size_t tokenCount = 0;
            ResultPtr clean = cleanPass(*model, text, ids, truncate, withCancel, &tokenCount);
            if (!clean) {
                return [this, n = tokenCount, limit = model->spec.maxTokens()] {
                    m_session->reportInputTooLong(static_cast<int>(n), limit);
                };
            }
            return applyAblated(*model, clean, true, withCancel, plan, timer);
        },
        [this](const JobEnd& end) {
            if (end.status == JobEnd::Failed) {
                m_session->reportError(end.error);
            }
            if (!isComputing()) {
                emit idle();
            }
        });
}

void ComputeService::schedulePredictions() {
    const ModelPtr model = m_session->model();
    const ResultPtr result = m_session->result();
    const ResultPtr clean = m_session->cleanResult();
    const int position = m_session->predictionPosition();
    if (m_shutDown || !model || !result || position < 0 || !forward::hasPredictionHead(*model)) {
        m_jobs.dropKind(JobKind::Predictions);
        return;
    }
    if (m_session->seq2seq()) {
        scheduleSeq2SeqPredictions(model, position);
        return;
    }
    // The vocabulary projection is a [vocab × hidden] product: tens of milliseconds on big
    // models, so it runs off the GUI thread like every other core computation.
    m_jobs.run(
        JobKind::Predictions, &m_interactivePool,
        [this, model, result, clean, position](const CancelToken&,
                                               JobProgress&) -> JobRunner::ApplyStep {
            Predictions p;
            if (clean && clean != result) {  // ablated: both passes side by side
                p = comparePredictions(*model, clean, result, position, kTopPredictions);
            } else {
                p.result = result;
                p.position = position;
                p.top = forward::topPredictions(*model, result->forward, position, kTopPredictions);
            }
            return [this, p = std::move(p)] { m_session->setPredictions(p); };
        },
        [this](const JobEnd& end) {
            if (end.status == JobEnd::Failed) {
                m_session->reportError(tr("Predictions: %1").arg(end.error));
            }
        });
}

void ComputeService::exportFile(const QString& path,
                                std::function<void(const std::string&)> write) {
    if (m_shutDown) {
        return;
    }
    emit exportStarted(path);
    m_jobs.run(
        JobKind::Export, &m_backgroundPool,
        [path, write = std::move(write)](const CancelToken&, JobProgress&) {
            write(path.toStdString());
            return JobRunner::ApplyStep([] {});  // nothing to apply: the file is the result
        },
        [this, path](const JobEnd& end) {
            if (end.status == JobEnd::Failed) {
                m_session->reportError(tr("Export failed: %1").arg(end.error));
            }
            emit exportFinished(path, end.status == JobEnd::Applied);
        });
}

void ComputeService::onProgress(JobKind kind, int done, int total) {
    if (kind == JobKind::Load && total > 0) {
        emit loadProgress(static_cast<double>(done) / total);
    }
}

}  // namespace attnscope::app
