#include "panels/status_line.h"

#include <algorithm>

#include <QLabel>
#include <QProgressBar>
#include <QStatusBar>
#include <QToolButton>

#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "session/head_record_status.h"
#include "widgets/named.h"

namespace attnscope::app {

StatusLine::StatusLine(QStatusBar* bar, AnalysisSession* session, ComputeService* service)
    : QObject(bar),
      m_bar(bar),
      m_session(session),
      m_service(service),
      m_model(named<QLabel>("statusModel", bar)),
      m_compute(named<QLabel>("statusCompute", bar)),
      m_loadProgress(named<QProgressBar>("loadProgress", bar)),
      m_cancelLoad(named<QToolButton>("cancelLoad", bar)) {
    m_loadProgress->setRange(0, 1000);
    m_loadProgress->setMaximumWidth(200);
    m_loadProgress->hide();
    m_cancelLoad->setText(tr("Cancel"));
    m_cancelLoad->hide();
    connect(m_cancelLoad, &QToolButton::clicked, m_service, &ComputeService::cancelLoad);
    bar->addWidget(m_model, 1);
    bar->addPermanentWidget(m_compute);
    bar->addPermanentWidget(m_loadProgress);
    bar->addPermanentWidget(m_cancelLoad);
    connect(m_session, &AnalysisSession::resultChanged, this, &StatusLine::refresh);
    connect(m_session, &AnalysisSession::modelChanged, this, &StatusLine::refresh);
    wireLoads();
    wireMessages();
    refresh();
}

void StatusLine::wireLoads() {
    connect(m_service, &ComputeService::loadStarted, this, [this](const QString& path) {
        m_loadProgress->setValue(0);
        m_loadProgress->show();
        m_cancelLoad->show();
        m_model->setText(tr("Opening %1…").arg(path));
    });
    connect(m_service, &ComputeService::loadProgress, this,
            [this](double f) { m_loadProgress->setValue(static_cast<int>(f * 1000)); });
    connect(m_service, &ComputeService::loadFinished, this, [this] {
        m_loadProgress->hide();
        m_cancelLoad->hide();
        refresh();
    });
}

void StatusLine::wireMessages() {
    connect(m_service, &ComputeService::exportStarted, this,
            [this](const QString& path) { m_bar->showMessage(tr("Writing %1…").arg(path)); });
    connect(m_service, &ComputeService::exportFinished, this, [this](const QString& path, bool ok) {
        if (ok) {
            m_bar->showMessage(tr("Wrote %1").arg(path), 5000);
        } else {
            m_bar->clearMessage();  // the message bar says why
        }
    });
    connect(m_service, &ComputeService::headRecordStarted, this,
            [this](HeadId head) { m_bar->showMessage(headRecordStatusMessage(head)); });
    connect(m_service, &ComputeService::headRecordFinished, this, [this](HeadId head) {
        // Only our own line: a "Wrote …" shown meanwhile stays for its time.
        if (m_bar->currentMessage() == headRecordStatusMessage(head)) {
            m_bar->clearMessage();
        }
    });
}

void StatusLine::refresh() {
    const auto model = m_session->model();
    if (!model) {
        m_model->setText(tr("No model open"));
    } else {
        const auto& s = model->spec;
        const QString stacks = model->isEncoderDecoder()
                                   ? tr("encoder %1 layers × %2 heads, decoder %3 × %4")
                                         .arg(s.nLayers)
                                         .arg(s.nHeads)
                                         .arg(model->decoder->spec.nLayers)
                                         .arg(model->decoder->spec.nHeads)
                                   : tr("%1 layers × %2 heads").arg(s.nLayers).arg(s.nHeads);
        m_model->setText(tr("%1 · %2 · d=%3 · %4 weights")
                             .arg(QString::fromStdString(s.modelType), stacks)
                             .arg(s.dModel)
                             .arg(QString::fromStdString(model->storedDtypes)));
    }
    m_compute->setText(passText());
}

QString StatusLine::passText() const {
    const auto result = m_session->result();
    QString computed = result ? tr("%1 tokens · %2 heads in %3 ms")
                                    .arg(result->forward.nTokens)
                                    .arg(result->forward.nLayers * result->forward.nHeads)
                                    .arg(m_service->lastComputeMilliseconds(), 0, 'f', 1)
                              : QString();
    if (const auto seq2seq = m_session->seq2seq()) {
        // Both sides and the kind shown: "12 tokens" alone would not say of which.
        computed = tr("source %1 · decoder %2 tokens · %3 shown · %4 ms")
                       .arg(seq2seq->encoder.forward.nTokens)
                       .arg(seq2seq->decoder.forward.nTokens)
                       .arg(QString::fromStdString(
                           forward::attentionKindTitle(m_session->attentionKind())))
                       .arg(m_service->lastComputeMilliseconds(), 0, 'f', 1);
    }
    if (m_session->resultIsTruncated()) {
        computed.prepend(tr("truncated to the model's limit · "));
    }
    if (result && m_session->cleanResult() != result) {
        const auto& ablated = result->forward.ablated;
        const auto n = std::count_if(ablated.begin(), ablated.end(),
                                     [](const auto& kind) { return kind.has_value(); });
        computed += n == 1 ? tr(" · 1 head ablated") : tr(" · %1 heads ablated").arg(n);
        if (!m_session->meanSource().isEmpty()) {
            computed += tr(" (means over %1)").arg(m_session->meanSource());
        }
    }
    return computed;
}

}  // namespace attnscope::app
