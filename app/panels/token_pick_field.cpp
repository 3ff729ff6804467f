#include "panels/token_pick_field.h"

#include <QKeyEvent>
#include <QLineEdit>
#include <QVBoxLayout>

#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/forward/prediction.h"
#include "session/analysis_session.h"
#include "session/token_lookup.h"
#include "widgets/named.h"

namespace attnscope::app {

TokenPickField::TokenPickField(AnalysisSession* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_edit(named<QLineEdit>("predictionPickField", this)) {
    m_edit->setPlaceholderText(tr("Other token…"));
    m_edit->setToolTip(
        tr("A word the tokenizer makes one token of (“ Mary”, with its leading "
           "space), a vocabulary piece as attnscope-cli tokenize prints it, or "
           "#id. Enter explains its logit; Ctrl+Enter subtracts it."));
    m_edit->setClearButtonEnabled(true);
    m_edit->installEventFilter(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_edit);
    connect(session, &AnalysisSession::pickedTokensChanged, this, &TokenPickField::showPicked);
    connect(session, &AnalysisSession::modelChanged, this, [this] {
        m_edit->clear();
        showPicked();
    });
    showPicked();
}

void TokenPickField::setStatus(const QString& text) {
    if (text != m_status) {
        m_status = text;
        emit statusChanged(m_status);
    }
}

bool TokenPickField::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_edit && event->type() == QEvent::KeyPress) {
        const auto* key = static_cast<QKeyEvent*>(event);
        if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
            pick(key->modifiers() & Qt::ControlModifier);
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

bool TokenPickField::pick(bool asDistractor) {
    const auto model = m_session->model();
    if (!model) {
        setStatus(tr("Open a model first."));
        return false;
    }
    const TokenLookup found = lookUpToken(*model, m_edit->text());
    if (!found.id) {
        setStatus(found.error);
        return false;
    }
    if (asDistractor) {
        m_session->pickDistractor(found.id);
    } else {
        m_session->pickTarget(found.id);
    }
    m_edit->clear();
    showPicked();  // also when the pick did not change
    return true;
}

void TokenPickField::showPicked() {
    const auto model = m_session->model();
    const PickedTokens& picked = m_session->pickedTokens();
    const auto name = [&](std::int32_t id) {
        return QStringLiteral("“%1” (#%2)")
            .arg(QString::fromStdString(analysis::tokenLabel(forward::tokenPiece(*model, id))))
            .arg(id);
    };
    if (!model || (!picked.target && !picked.distractor)) {
        setStatus({});
        return;
    }
    QString text = picked.target ? tr("Target: %1").arg(name(*picked.target))
                                 : tr("Target: the top prediction");
    if (picked.distractor) {
        text += tr(" minus %1").arg(name(*picked.distractor));
    }
    setStatus(text + QLatin1Char('.'));
}

}  // namespace attnscope::app
