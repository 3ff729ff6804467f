#include "session/attribution_maps.h"

#include "session/analysis_session.h"

namespace attnscope::app {

bool AttributionMaps::follow(const ResultPtr& clean) {
    if (m_result == clean) {
        return false;  // an ablation changed: the clean pass, and so its attributions, stay
    }
    m_result = clean;
    m_states = {};
    return true;
}

void AttributionMaps::resetMethodFor(bool encoderDecoder) {
    if (encoderDecoder) {
        m_headViewMethod = Method::Raw;  // the only one they support
    }
}

bool AttributionMaps::available(Method method) const {
    if (m_session.isEncoderDecoder()) {
        return false;  // the methods take one stack's layers apart (unsupportedReason)
    }
    const ResultPtr& clean = m_session.cleanResult();
    return method != Method::Flow || !clean || clean->forward.nTokens <= analysis::kFlowMaxTokens;
}

AttributionPtr AttributionMaps::maps(Method method) {
    if (!m_session.cleanResult() || !m_session.model()) {
        return nullptr;
    }
    const AttributionState& s = state(method);
    if (s.status == AttributionState::Ready) {
        return s.maps;
    }
    if (s.status == AttributionState::Missing && available(method)) {
        start(method);
    }
    return nullptr;
}

void AttributionMaps::start(Method method) {
    AttributionState& s = stateOf(method);
    s = {};
    s.status = AttributionState::Waiting;
    emit requested(method);
}

void AttributionMaps::request(Method method) {
    askAgain(method);
    if (m_session.cleanResult() && m_session.model() &&
        state(method).status == AttributionState::Missing && available(method)) {
        start(method);
        emit changed();
    }
}

void AttributionMaps::cancel(Method method) {
    AttributionState& s = stateOf(method);
    if (s.status != AttributionState::Waiting) {
        return;
    }
    s = {};
    s.status = AttributionState::Cancelled;
    s.message = tr("cancelled");
    emit cancelRequested(method);
    emit changed();
}

void AttributionMaps::set(const ResultPtr& forResult, Method method, AttributionPtr maps) {
    if (!forResult || forResult != m_result || !maps) {
        return;  // of a sentence, setting or model no longer shown
    }
    AttributionState& s = stateOf(method);
    s = {};
    s.status = AttributionState::Ready;
    s.maps = std::move(maps);
    emit changed();
}

void AttributionMaps::setProgress(const ResultPtr& forResult, Method method, double fraction) {
    AttributionState& s = stateOf(method);
    if (forResult == m_result && s.status == AttributionState::Waiting) {
        s.progress = fraction;
        emit progress(method, fraction);
    }
}

void AttributionMaps::setFailed(const ResultPtr& forResult, Method method, const QString& message) {
    if (!forResult || forResult != m_result) {
        return;
    }
    AttributionState& s = stateOf(method);
    s = {};
    s.status = AttributionState::Failed;
    s.message = message;
    emit changed();
    m_session.reportError(
        tr("%1 could not be computed: %2")
            .arg(QString::fromStdString(analysis::attributionMethodTitle(method)), message));
}

void AttributionMaps::setHeadViewMethod(Method method) {
    if (method == m_headViewMethod) {
        return;
    }
    m_headViewMethod = method;
    askAgain(method);
    emit headViewMethodChanged();
}

void AttributionMaps::setMethodPair(MethodPair pair) {
    if (pair.left == m_methodPair.left && pair.right == m_methodPair.right) {
        return;
    }
    m_methodPair = pair;
    askAgain(pair.left);
    askAgain(pair.right);
    emit methodPairChanged();
}

// A method the user picks is asked for anew even when an earlier request was cancelled or
// failed; the view that shows it asks when it draws.
void AttributionMaps::askAgain(Method method) {
    AttributionState& s = stateOf(method);
    if (s.status == AttributionState::Cancelled || s.status == AttributionState::Failed) {
        s = {};
    }
}

}  // namespace attnscope::app
