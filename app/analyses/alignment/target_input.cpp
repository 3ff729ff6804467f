#include "analyses/alignment/target_input.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QToolButton>

#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "widgets/named.h"

namespace attnscope::app {

TargetInput::TargetInput(AnalysisSession* session, ComputeService* service, QWidget* parent)
    : QWidget(parent),
      m_session(session),
      m_service(service),
      m_edit(named<QLineEdit>("targetEdit", this)),
      m_translate(named<QToolButton>("translateButton", this)),
      m_limit(named<QSpinBox>("translateLimit", this)),
      m_state(named<QLabel>("translateState", this)) {
    setObjectName(QStringLiteral("targetInput"));
    m_edit->setPlaceholderText(tr("Type the target, or Translate"));
    m_edit->setClearButtonEnabled(true);
    m_edit->setToolTip(
        tr("The decoder reads its start token and this target shifted right (teacher forcing): "
           "decoder row t produces target token t"));
    m_translate->setToolTip(
        tr("Greedy decoding from the source: the most probable next token until the end token "
           "or the limit; editing the source stops it"));
    m_limit->setRange(1, 512);
    m_limit->setValue(ComputeService::kDefaultTranslateTokens);
    m_limit->setToolTip(tr("Translate generates at most this many target tokens"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr(" Target: "), this));
    layout->addWidget(m_edit, 1);
    layout->addWidget(m_translate);
    layout->addWidget(new QLabel(tr("max"), this));
    layout->addWidget(m_limit);
    layout->addWidget(m_state);
    connect(m_edit, &QLineEdit::textEdited, m_session, [this](const QString& text) {
        m_service->cancelTranslate();  // the user's own target replaces the decoding
        m_session->setTargetText(text);
    });
    connect(m_session, &AnalysisSession::targetTextChanged, this, [this](const QString& text) {
        if (m_edit->text() != text) {
            m_edit->setText(text);
        }
    });
    connect(m_translate, &QToolButton::clicked, this, [this] {
        if (m_service->isTranslating()) {
            m_service->cancelTranslate();
        } else {
            translate();
        }
    });
    // Started is told before the job is queued and finished while it still is: the button
    // reads the runner's state from the event loop.
    connect(m_service, &ComputeService::translateStarted, this, &TargetInput::refreshButton,
            Qt::QueuedConnection);
    connect(m_service, &ComputeService::translateFinished, this, &TargetInput::refreshButton,
            Qt::QueuedConnection);
    refreshButton();
}

int TargetInput::maxTokens() const {
    return m_limit->value();
}

void TargetInput::setMaxTokens(int n) {
    m_limit->setValue(n);
}

bool TargetInput::translate() {
    return m_service->translate(m_limit->value());
}

void TargetInput::refreshButton() {
    const bool running = m_service->isTranslating();
    m_translate->setText(running ? tr("Stop") : tr("Translate"));
    m_state->setText(running ? tr("decoding…") : QString());
}

}  // namespace attnscope::app
