// AnalysisSession's encoder-decoder part (issue 20), apart from analysis_session.cpp like its
// ablations: the target text, the source-and-target analysis and the kind of attention shown.
#include <QObject>

#include "session/analysis_session.h"

namespace attnscope::app {

using forward::AttentionKind;

void AnalysisSession::setTargetText(const QString& text) {
    if (text == m_targetText && m_decodedTarget.empty()) {
        return;
    }
    // Typed, even when it spells what was decoded: it is tokenized from now on.
    m_decodedTarget.clear();
    m_targetText = text;
    emit targetTextChanged(text);
}

void AnalysisSession::setDecodedTarget(const QString& text, std::vector<std::int32_t> ids) {
    if (text == m_targetText && ids == m_decodedTarget) {
        return;
    }
    m_decodedTarget = std::move(ids);
    m_targetText = text;
    emit targetTextChanged(text);
}

void AnalysisSession::setSeq2Seq(std::shared_ptr<const analysis::Seq2SeqAnalysis> analysis) {
    m_seq2seq = std::move(analysis);
    m_effects.reset();  // no ablations on encoder-decoder models
    m_meanSource.clear();
    applySeq2SeqKind();
}

void AnalysisSession::applySeq2SeqKind() {
    // An aliasing pointer: the kind's part keeps the whole analysis alive, and a view holding
    // result() still holds what it shows after the next analysis replaces this one.
    std::shared_ptr<const analysis::SentenceAnalysis> shown;
    if (m_seq2seq) {
        shown =
            std::shared_ptr<const analysis::SentenceAnalysis>(m_seq2seq, &m_seq2seq->of(m_kind));
    }
    m_clean = shown;
    applyResult(std::move(shown));
}

void AnalysisSession::setAttentionKind(AttentionKind kind) {
    if (kind == m_kind) {
        return;
    }
    m_kind = kind;
    // The encoder and the decoder may differ in layers and heads (BART fixtures: 2 × 3, 3 × 2).
    const HeadId selected = clamp(m_selected);
    const HeadId compare = clamp(m_compare);
    const bool movedSelected = selected != m_selected;
    const bool movedCompare = compare != m_compare;
    m_selected = selected;
    m_compare = compare;
    emit attentionKindChanged(kind);
    if (m_seq2seq) {
        applySeq2SeqKind();
    }
    if (movedSelected) {
        emit selectedHeadChanged(m_selected);
    }
    if (movedCompare) {
        emit compareHeadChanged(m_compare);
    }
}

const model::Model* AnalysisSession::shownStack() const {
    if (!m_model) {
        return nullptr;
    }
    if (m_model->isEncoderDecoder() && m_kind != AttentionKind::Encoder) {
        return m_model->decoder.get();
    }
    return m_model.get();
}

std::shared_ptr<const analysis::SentenceAnalysis> AnalysisSession::predictionRows() const {
    if (m_seq2seq) {
        return {m_seq2seq, &m_seq2seq->decoder};
    }
    return m_result;
}

QString AnalysisSession::unsupportedReason() const {
    if (!isEncoderDecoder()) {
        return {};
    }
    return tr(
        "Not available for encoder-decoder models (T5, BART, Marian) yet: it re-runs a "
        "one-stack model and would show the encoder's numbers only.");
}

}  // namespace attnscope::app
