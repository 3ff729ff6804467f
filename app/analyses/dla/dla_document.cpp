#include "analyses/dla/dla_document.h"

#include "session/analysis_session.h"

namespace attnscope::app {

bool DlaDocument::isCurrent(const Run& run) const {
    const auto clean = session().cleanResult();
    return clean && run.forPass.lock() == clean &&
           run.attribution.position == session().predictionPosition() &&
           run.picked == session().pickedTokens();
}

void DlaDocument::setRun(std::shared_ptr<const Run> run) {
    if (!run || run->forPass.lock() != session().cleanResult()) {
        return;
    }
    m_run = std::move(run);
    emit runChanged();
}

void DlaDocument::setViewed(bool viewed) {
    if (viewed != m_viewed) {
        m_viewed = viewed;
        emit viewedChanged(viewed);
    }
}

bool DlaDocument::dropModel() {
    const bool had = m_run != nullptr;
    m_run.reset();
    return had;
}

}  // namespace attnscope::app
