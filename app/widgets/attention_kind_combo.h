// The kind of attention an encoder-decoder model's views show (issue 20): encoder
// self-attention, decoder self-attention or cross-attention, bound to the session
// (AnalysisSession::setAttentionKind). Placed where the user reads which map they look at: above
// the model grid and in the head view's header. Hidden for one-stack models.
#pragma once

#include <QComboBox>

#include "attnscope/forward/seq2seq_pass.h"

namespace attnscope::app {

class AnalysisSession;

class AttentionKindCombo : public QComboBox {
    Q_OBJECT

public:
    AttentionKindCombo(AnalysisSession* session, QWidget* parent = nullptr);

    forward::AttentionKind kind() const;

private:
    void refresh();

    AnalysisSession* m_session;
};

// The axis labels of the session's result: rows are the queries' tokens, except for
// cross-attention, whose rows are named by the target token each produces ("→ piece",
// Seq2SeqAnalysis::targetLabel); columns are the keys' tokens (the source's for cross-attention).
QStringList queryLabels(const AnalysisSession& session);
QStringList keyLabels(const AnalysisSession& session);

// "rows: decoder input tokens (→ the target token each produces), columns: source tokens", and
// the like: what a map of `kind` has on its axes, for titles.
QString attentionAxesText(forward::AttentionKind kind);

}  // namespace attnscope::app
