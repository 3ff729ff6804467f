#include "widgets/sentence_field.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>

#include "session/analysis_session.h"
#include "widgets/named.h"

namespace attnscope::app {

SentenceField::SentenceField(AnalysisSession* session, QWidget* parent)
    : QWidget(parent),
      m_session(session),
      m_label(new QLabel(this)),
      m_edit(named<QLineEdit>("sentenceEdit", this)),
      m_error(named<QLabel>("sentenceError", this)) {
    setObjectName(QStringLiteral("sentenceField"));
    m_edit->setClearButtonEnabled(true);
    m_error->setStyleSheet(QStringLiteral("color: #c62828;"));
    // Elided to what is left beside the field (the whole line in its tool tip): a long error
    // must not widen the tool bar past a 1024 px screen.
    m_error->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_error->hide();
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_label);
    layout->addWidget(m_edit, 3);
    layout->addWidget(m_error, 2);
    connect(m_edit, &QLineEdit::textChanged, m_session, &AnalysisSession::setText);
    connect(m_session, &AnalysisSession::textChanged, this, [this](const QString& text) {
        if (m_edit->text() != text) {
            m_edit->setText(text);
        }
    });
    connect(m_session, &AnalysisSession::modelChanged, this, &SentenceField::refreshForModel);
    connect(m_session, &AnalysisSession::tokenIdInputChanged, this, &SentenceField::refreshError);
    refreshForModel();
}

QString SentenceField::errorText() const {
    return m_error->isHidden() ? QString() : m_error->toolTip();
}

void SentenceField::refreshForModel() {
    if (m_session->takesTokenIds()) {
        m_label->setText(tr(" Token ids: "));
        m_edit->setPlaceholderText(
            tr("This model has no tokenizer files: type token ids, e.g. 101, 7592, 102"));
        m_edit->setToolTip(tr("Token ids 0 … %1, separated by commas or spaces; the views label "
                              "them with the vocabulary's pieces when the folder has one, else "
                              "with the ids")
                               .arg(m_session->model()->spec.vocabSize - 1));
    } else {
        const bool seq2seq = m_session->isEncoderDecoder();
        m_label->setText(seq2seq ? tr(" Source: ") : tr(" Sentence: "));
        m_edit->setPlaceholderText(seq2seq
                                       ? tr("Type the source; every head recomputes as you type")
                                       : tr("Type a sentence; every head recomputes as you type"));
        m_edit->setToolTip(QString());
    }
    refreshError();
}

void SentenceField::refreshError() {
    const TokenIdList& input = m_session->tokenIdInput();
    m_error->setVisible(!input.ok());
    m_error->setText(input.error);
    m_error->setToolTip(input.error);
}

}  // namespace attnscope::app
