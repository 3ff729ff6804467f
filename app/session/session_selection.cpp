// AnalysisSession's selection, apart from analysis_session.cpp as its ablations are: the heads
// A and B (clamped to the shown stack's size; B follows A until picked), the token whose
// predictions are shown and the target and distractor picked among them.
#include <algorithm>

#include "attnscope/forward/prediction.h"
#include "session/analysis_session.h"

namespace attnscope::app {

int AnalysisSession::layerCount() const {
    const model::Model* stack = shownStack();
    return stack ? stack->spec.nLayers : 0;
}

int AnalysisSession::headCount() const {
    const model::Model* stack = shownStack();
    return stack ? stack->spec.nHeads : 0;
}

HeadId AnalysisSession::clamp(HeadId head) const {
    return {std::clamp(head.layer, 0, std::max(0, layerCount() - 1)),
            std::clamp(head.head, 0, std::max(0, headCount() - 1))};
}

void AnalysisSession::selectHead(HeadId head) {
    head = clamp(head);
    if (head == m_selected) {
        return;
    }
    m_selected = head;
    const HeadId b = m_compareFollows ? followingHead(head) : m_compare;
    const bool movedB = b != m_compare;
    m_compare = b;
    m_headRecords.startRound();
    emit selectedHeadChanged(head);
    if (movedB) {
        emit compareHeadChanged(b);
    }
}

// The head after A in A's layer, wrapping to head 0; with one head per layer, the same head of
// the next layer; A itself in a one-head model.
HeadId AnalysisSession::followingHead(HeadId a) const {
    if (headCount() > 1) {
        return {a.layer, (a.head + 1) % headCount()};
    }
    if (layerCount() > 1) {
        return {(a.layer + 1) % layerCount(), a.head};
    }
    return a;
}

void AnalysisSession::setCompareHead(HeadId head) {
    head = clamp(head);
    m_compareFollows = false;  // the user's B stays where they put it
    if (head == m_compare) {
        return;
    }
    m_compare = head;
    m_headRecords.startRound();
    emit compareHeadChanged(head);
}

void AnalysisSession::selectToken(int index) {
    const int n = m_result ? m_result->forward.nTokens : 0;
    const int clamped = index >= 0 && index < n ? index : -1;
    if (clamped != m_selectedToken) {
        m_selectedToken = clamped;
        m_predictions = {};
        emit selectedTokenChanged(m_selectedToken);
    }
}

int AnalysisSession::predictionPosition() const {
    if (!m_result || !m_model || m_result->forward.nTokens == 0) {
        return -1;
    }
    if (m_seq2seq) {
        // Rows of the decoder: a row clicked in the encoder's map is a source token.
        const int rows = m_seq2seq->decoder.forward.nTokens;
        const bool onDecoderRows = m_kind != forward::AttentionKind::Encoder;
        return onDecoderRows && m_selectedToken >= 0 && m_selectedToken < rows ? m_selectedToken
                                                                               : rows - 1;
    }
    if (m_selectedToken >= 0) {
        return m_selectedToken;
    }
    if (m_model->spec.prediction == model::PredictionKind::CausalLm) {
        return m_result->forward.nTokens - 1;
    }
    const std::vector<int> masks =
        forward::maskTokenPositions(*m_model, m_result->forward.tokenIds);
    return masks.empty() ? -1 : masks.front();
}

void AnalysisSession::pickTarget(std::optional<std::int32_t> id) {
    PickedTokens picked{id, m_picked.distractor};
    if (id && picked.distractor == id) {
        picked.distractor.reset();  // a logit minus itself is zero
    }
    if (picked != m_picked) {
        m_picked = picked;
        emit pickedTokensChanged();
    }
}

void AnalysisSession::pickDistractor(std::optional<std::int32_t> id) {
    PickedTokens picked{m_picked.target, id};
    if (id && picked.target == id) {
        picked.target.reset();  // the top prediction becomes the target again
    }
    if (picked != m_picked) {
        m_picked = picked;
        emit pickedTokensChanged();
    }
}

void AnalysisSession::setPredictions(Predictions predictions) {
    if (predictions.result != m_result || predictions.position != predictionPosition()) {
        return;  // a newer sentence or position is on its way
    }
    m_predictions = std::move(predictions);
    emit predictionsChanged();
}

}  // namespace attnscope::app
