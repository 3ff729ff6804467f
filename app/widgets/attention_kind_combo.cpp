#include "widgets/attention_kind_combo.h"

#include "session/analysis_session.h"

namespace attnscope::app {

using forward::AttentionKind;

AttentionKindCombo::AttentionKindCombo(AnalysisSession* session, QWidget* parent)
    : QComboBox(parent), m_session(session) {
    for (const AttentionKind k :
         {AttentionKind::Encoder, AttentionKind::Decoder, AttentionKind::Cross}) {
        addItem(QString::fromStdString(forward::attentionKindTitle(k)), static_cast<int>(k));
    }
    setItemData(0, tr("The encoder's heads over the source tokens"), Qt::ToolTipRole);
    setItemData(1, tr("The decoder's causal heads over its input (start token + target)"),
                Qt::ToolTipRole);
    setItemData(2,
                tr("The decoder's heads reading the encoder's output: rows are decoder tokens, "
                   "columns source tokens"),
                Qt::ToolTipRole);
    setToolTip(tr("Which attention the views show"));
    setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(this, &QComboBox::activated, this, [this] { m_session->setAttentionKind(kind()); });
    connect(m_session, &AnalysisSession::attentionKindChanged, this, &AttentionKindCombo::refresh);
    connect(m_session, &AnalysisSession::modelChanged, this, &AttentionKindCombo::refresh);
    refresh();
}

AttentionKind AttentionKindCombo::kind() const {
    return static_cast<AttentionKind>(currentData().toInt());
}

void AttentionKindCombo::refresh() {
    setCurrentIndex(findData(static_cast<int>(m_session->attentionKind())));
    setVisible(m_session->isEncoderDecoder());
}

QStringList queryLabels(const AnalysisSession& session) {
    QStringList out;
    const auto result = session.result();
    const auto seq2seq = session.seq2seq();
    const bool cross = seq2seq && session.attentionKind() == AttentionKind::Cross;
    for (int i = 0; result && i < result->forward.nTokens; ++i) {
        out << QString::fromStdString(cross ? seq2seq->targetLabel(i) : result->label(i));
    }
    return out;
}

QStringList keyLabels(const AnalysisSession& session) {
    QStringList out;
    const auto result = session.result();
    for (int j = 0; result && j < result->keyCount(); ++j) {
        out << QString::fromStdString(result->keyLabel(j));
    }
    return out;
}

QString attentionAxesText(AttentionKind kind) {
    switch (kind) {
        case AttentionKind::Encoder:
            return QObject::tr("rows: source queries, columns: source keys");
        case AttentionKind::Decoder:
            return QObject::tr("rows: decoder queries, columns: decoder keys");
        case AttentionKind::Cross:
            // Short enough for the head view's title at 1024 px; the tool tips say more.
            return QObject::tr("rows: target tokens (→), columns: source tokens");
    }
    return {};
}

}  // namespace attnscope::app
