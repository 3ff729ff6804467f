#include "widgets/attention_kind_combo.h"

#include "render/named_enum.h"
#include "session/analysis_session.h"

namespace attnscope::app {

using forward::AttentionKind;

namespace {

// Each kind's item tool tip and what its map has on its axes; tr() at use.
struct KindWords {
    AttentionKind value;
    const char* tip;
    const char* axes;
};

constexpr KindWords kKinds[] = {
    {AttentionKind::Encoder,
     QT_TRANSLATE_NOOP("AttentionKindCombo", "The encoder's heads over the source tokens"),
     QT_TRANSLATE_NOOP("QObject", "rows: source queries, columns: source keys")},
    {AttentionKind::Decoder,
     QT_TRANSLATE_NOOP("AttentionKindCombo",
                       "The decoder's causal heads over its input (start token + target)"),
     QT_TRANSLATE_NOOP("QObject", "rows: decoder queries, columns: decoder keys")},
    // The axes short enough for the head view's title at 1024 px; the tool tips say more.
    {AttentionKind::Cross,
     QT_TRANSLATE_NOOP("AttentionKindCombo",
                       "The decoder's heads reading the encoder's output: rows are decoder "
                       "tokens, columns source tokens"),
     QT_TRANSLATE_NOOP("QObject", "rows: target tokens (→), columns: source tokens")},
};

}  // namespace

AttentionKindCombo::AttentionKindCombo(AnalysisSession* session, QWidget* parent)
    : QComboBox(parent), m_session(session) {
    for (const KindWords& k : kKinds) {
        addItem(QString::fromStdString(forward::attentionKindTitle(k.value)),
                static_cast<int>(k.value));
        setItemData(count() - 1, tr(k.tip), Qt::ToolTipRole);
    }
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
    const KindWords* k = render::rowOf(kKinds, kind);
    return k ? QObject::tr(k->axes) : QString();
}

}  // namespace attnscope::app
