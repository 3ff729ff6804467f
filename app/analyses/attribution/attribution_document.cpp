// AnalysisSession's attribution maps (issue 19), apart from analysis_session.cpp like its
// ablations, with the plain store they live in.
#include "analyses/attribution/attribution_document.h"

#include <QMetaObject>

#include "session/analysis_session.h"

namespace attnscope::app {

using analysis::AttributionMethod;

void AttributionStore::reset(std::shared_ptr<const analysis::SentenceAnalysis> forResult) {
    m_result = std::move(forResult);
    m_states = {};
}

bool AnalysisSession::syncAttributions() {
    if (m_attributions.result() == m_clean) {
        return false;  // an ablation changed: the clean pass, and so its attributions, stay
    }
    m_attributions.reset(m_clean);
    return true;
}

bool AnalysisSession::attributionAvailable(AttributionMethod method) const {
    if (isEncoderDecoder()) {
        return false;  // the methods take one stack's layers apart (unsupportedReason)
    }
    return method != AttributionMethod::Flow || !m_clean ||
           m_clean->forward.nTokens <= analysis::kFlowMaxTokens;
}

AttributionPtr AnalysisSession::attribution(AttributionMethod method) {
    if (!m_clean || !m_model) {
        return nullptr;
    }
    const AttributionState& s = m_attributions.state(method);
    if (s.status == AttributionState::Ready) {
        return s.maps;
    }
    if (s.status == AttributionState::Missing && attributionAvailable(method)) {
        startAttribution(method);
    }
    return nullptr;
}

const AttributionState& AnalysisSession::attributionState(AttributionMethod method) const {
    return m_attributions.state(method);
}

void AnalysisSession::startAttribution(AttributionMethod method) {
    AttributionState& s = m_attributions.state(method);
    s = {};
    s.status = AttributionState::Waiting;
    emit attributionRequested(method);
}

void AnalysisSession::requestAttribution(AttributionMethod method) {
    AttributionState& s = m_attributions.state(method);
    if (s.status == AttributionState::Cancelled || s.status == AttributionState::Failed) {
        s = {};
    }
    if (m_clean && m_model && s.status == AttributionState::Missing &&
        attributionAvailable(method)) {
        startAttribution(method);
        emit attributionsChanged();
    }
}

void AnalysisSession::cancelAttribution(AttributionMethod method) {
    AttributionState& s = m_attributions.state(method);
    if (s.status != AttributionState::Waiting) {
        return;
    }
    s = {};
    s.status = AttributionState::Cancelled;
    s.message = tr("cancelled");
    emit attributionCancelRequested(method);
    emit attributionsChanged();
}

void AnalysisSession::setAttribution(
    const std::shared_ptr<const analysis::SentenceAnalysis>& forResult, AttributionMethod method,
    AttributionPtr maps) {
    if (!forResult || forResult != m_attributions.result() || !maps) {
        return;  // of a sentence, setting or model no longer shown
    }
    AttributionState& s = m_attributions.state(method);
    s = {};
    s.status = AttributionState::Ready;
    s.maps = std::move(maps);
    emit attributionsChanged();
}

void AnalysisSession::setAttributionProgress(
    const std::shared_ptr<const analysis::SentenceAnalysis>& forResult, AttributionMethod method,
    double fraction) {
    AttributionState& s = m_attributions.state(method);
    if (forResult == m_attributions.result() && s.status == AttributionState::Waiting) {
        s.progress = fraction;
        emit attributionProgress(method, fraction);
    }
}

void AnalysisSession::setAttributionFailed(
    const std::shared_ptr<const analysis::SentenceAnalysis>& forResult, AttributionMethod method,
    const QString& message) {
    if (!forResult || forResult != m_attributions.result()) {
        return;
    }
    AttributionState& s = m_attributions.state(method);
    s = {};
    s.status = AttributionState::Failed;
    s.message = message;
    emit attributionsChanged();
    reportError(
        tr("%1 could not be computed: %2")
            .arg(QString::fromStdString(analysis::attributionMethodTitle(method)), message));
}

void AnalysisSession::setHeadViewMethod(AttributionMethod method) {
    if (method == m_headViewMethod) {
        return;
    }
    m_headViewMethod = method;
    requestAttributionAgain(method);
    emit headViewMethodChanged();
}

void AnalysisSession::setMethodPair(MethodPair pair) {
    if (pair.left == m_methodPair.left && pair.right == m_methodPair.right) {
        return;
    }
    m_methodPair = pair;
    requestAttributionAgain(pair.left);
    requestAttributionAgain(pair.right);
    emit methodPairChanged();
}

// A method the user picks is asked for anew even when an earlier request was cancelled or
// failed; the view that shows it asks when it draws.
void AnalysisSession::requestAttributionAgain(AttributionMethod method) {
    AttributionState& s = m_attributions.state(method);
    if (s.status == AttributionState::Cancelled || s.status == AttributionState::Failed) {
        s = {};
    }
}

}  // namespace attnscope::app
