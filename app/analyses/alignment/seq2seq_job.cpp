// ComputeService's encoder-decoder jobs (issue 20), apart from compute_service.cpp: the
// teacher-forced pass over the session's source and target, the predictions at a decoder row,
// and greedy decoding (Translate).
#include <QElapsedTimer>

#include "attnscope/analysis/seq2seq_analysis.h"
#include "attnscope/forward/prediction.h"
#include "attnscope/tokenize/detokenize.h"
#include "service/ablation_job.h"
#include "service/compute_service.h"

namespace attnscope::app {

namespace {

using ModelPtr = std::shared_ptr<const model::Model>;
using Seq2SeqPtr = std::shared_ptr<const analysis::Seq2SeqAnalysis>;

constexpr int kTopPredictions = 5;

}  // namespace

void ComputeService::scheduleSeq2Seq(const ModelPtr& model,
                                     const forward::ForwardOptions& options) {
    const std::string source = m_session->text().toStdString();
    const std::string target = m_session->targetText().toStdString();
    // Translate's ids, as decoded; else the typed target is tokenized.
    const std::vector<std::int32_t> decoded = m_session->decodedTarget();
    forward::ForwardOptions how;
    how.scale = options.scale;
    // A custom mask is sized for one sequence; the mask panel offers none for these models.
    if (options.mask.kind != forward::MaskKind::Custom) {
        how.mask = options.mask;
    }
    emit computeStarted();
    m_jobs.run(
        JobKind::Forward, &m_interactivePool,
        [this, model, source, target, decoded, how](const CancelToken& cancel,
                                                    JobProgress&) -> JobRunner::ApplyStep {
            QElapsedTimer timer;
            timer.start();
            forward::ForwardOptions withCancel = how;
            withCancel.cancel = cancel;
            auto analysis = std::make_shared<const analysis::Seq2SeqAnalysis>(
                decoded.empty()
                    ? analysis::analyzeSeq2SeqText(*model, source, target, withCancel)
                    : analysis::analyzeSeq2SeqDecoded(*model, source, decoded, withCancel));
            const double ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
            return [this, analysis, ms] {
                m_lastMs = ms;
                m_session->setSeq2Seq(analysis);
                emit computeFinished(ms);
            };
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

void ComputeService::scheduleSeq2SeqPredictions(const ModelPtr& model, int position) {
    const Seq2SeqPtr analysis = m_session->seq2seq();
    const auto result = m_session->result();
    m_jobs.run(
        JobKind::Predictions, &m_interactivePool,
        [this, model, analysis, result, position](const CancelToken&,
                                                  JobProgress&) -> JobRunner::ApplyStep {
            const forward::ForwardResult& decoder = analysis->decoder.forward;
            Predictions p;
            p.result = result;  // the kind shown: the session keeps answers about it
            p.position = position;
            p.top = forward::topPredictions(*model, decoder, position, kTopPredictions);
            if (static_cast<std::size_t>(position) < analysis->targetTokens.size()) {
                const tokenize::Token& actual =
                    analysis->targetTokens[static_cast<std::size_t>(position)];
                p.targetId = actual.id;
                p.targetLabel = QString::fromStdString(analysis::tokenLabel(actual.text));
                p.targetStanding = standingOf(*model, decoder, position, actual.id);
            }
            return [this, p = std::move(p)] { m_session->setPredictions(p); };
        },
        [this](const JobEnd& end) {
            if (end.status == JobEnd::Failed) {
                m_session->reportError(tr("Predictions: %1").arg(end.error));
            }
        });
}

bool ComputeService::refused(const QString& feature) const {
    const QString why = m_session->unsupportedReason();
    if (why.isEmpty()) {
        return false;
    }
    m_session->reportError(tr("%1: %2").arg(feature, why));
    return true;
}

bool ComputeService::translate(int maxTokens) {
    const ModelPtr model = m_session->model();
    if (m_shutDown || !model || !model->isEncoderDecoder()) {
        return false;
    }
    const std::string source = m_session->text().toStdString();
    if (!model->tokenizer || m_session->text().trimmed().isEmpty()) {
        m_session->reportError(
            tr("Translate: type a source text first (the model folder needs a "
               "tokenizer to read it)."));
        return false;
    }
    const quint64 run = ++m_translateRun;
    emit translateStarted();
    m_jobs.run(
        JobKind::Translate, &m_backgroundPool,
        [this, model, source, maxTokens, run](const CancelToken& cancel,
                                              JobProgress& progress) -> JobRunner::ApplyStep {
            std::vector<std::int32_t> sourceIds;
            for (const tokenize::Token& t : model->tokenizer->encode(source)) {
                sourceIds.push_back(t.id);
            }
            const tokenize::Tokenizer& out = *model->targetTextTokenizer();
            analysis::GreedyOptions options;
            options.maxTokens = maxTokens;
            options.cancel = cancel;
            progress.total = maxTokens;
            // Each token shows at once: the target field and the teacher-forced views follow
            // the decoding instead of waiting for its end.
            options.onToken = [this, run, &out, &progress](const std::vector<std::int32_t>& ids) {
                progress.done = static_cast<int>(ids.size());
                const QString text = QString::fromStdString(tokenize::decodeIds(out, ids));
                QMetaObject::invokeMethod(
                    this,
                    [this, run, text, ids] {
                        if (run == m_translateRun && !m_shutDown) {
                            m_session->setDecodedTarget(text, ids);
                        }
                    },
                    Qt::QueuedConnection);
            };
            std::vector<std::int32_t> ids = analysis::greedyTarget(*model, sourceIds, options);
            const QString text = QString::fromStdString(tokenize::decodeIds(out, ids));
            return [this, run, ids = std::move(ids), text] {
                // Finished before its cancel check, but a new source came meanwhile.
                if (run == m_translateRun) {
                    m_session->setDecodedTarget(text, ids);
                    emit translateFinished(true, ids);
                }
            };
        },
        [this, run](const JobEnd& end) {
            if (end.status == JobEnd::Failed) {
                m_session->reportError(tr("Translate: %1").arg(end.error));
            }
            if (end.status != JobEnd::Applied || run != m_translateRun) {
                emit translateFinished(false, {});
            }
        });
    return true;
}

void ComputeService::cancelTranslate() {
    ++m_translateRun;  // tokens already queued by the running one are dropped too
    m_jobs.cancelKind(JobKind::Translate);
}

}  // namespace attnscope::app
