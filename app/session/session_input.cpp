// AnalysisSession's input, apart from analysis_session.cpp as its selection is: the text, or the
// token ids that a model without tokenizer files reads from it (issue 30), and input longer than
// the model's positions, cut or refused.
#include "session/analysis_session.h"

namespace attnscope::app {

void AnalysisSession::setText(const QString& text) {
    if (text == m_text) {
        return;
    }
    m_text = text;
    parseTokenIds();
    emit textChanged(text);
}

bool AnalysisSession::takesTokenIds() const {
    return m_model && !m_model->tokenizer && !m_model->isEncoderDecoder();
}

void AnalysisSession::parseTokenIds() {
    TokenIdList parsed;
    if (takesTokenIds()) {
        parsed = app::parseTokenIds(m_text, m_model->spec.vocabSize);
    }
    const bool changed = parsed.ids != m_tokenIds.ids || parsed.error != m_tokenIds.error ||
                         parsed.errorStart != m_tokenIds.errorStart;
    m_tokenIds = std::move(parsed);
    if (changed) {
        emit tokenIdInputChanged();
    }
}

void AnalysisSession::setTruncateLongInput(bool on) {
    if (on != m_truncate) {
        m_truncate = on;
        emit computeSettingsChanged();
    }
}

bool AnalysisSession::resultIsTruncated() const {
    if (takesTokenIds()) {  // the result holds no text, only the ids
        return m_result &&
               static_cast<std::size_t>(m_result->forward.nTokens) < m_tokenIds.ids.size();
    }
    // An encoder-decoder's result is the target's on two kinds of three; text() is the source.
    const analysis::SentenceAnalysis* read = m_seq2seq ? &m_seq2seq->encoder : m_result.get();
    return read != nullptr && read->text.size() < static_cast<std::size_t>(m_text.toUtf8().size());
}

void AnalysisSession::reportInputTooLong(int tokens, int limit) {
    emit inputTooLong(tokens, limit);
}

}  // namespace attnscope::app
