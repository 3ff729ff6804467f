#include "analyses/circuits/circuits_document.h"

#include "session/analysis_session.h"

namespace attnscope::app {

void CircuitsDocument::setRun(std::shared_ptr<const Run> run) {
    if (!run || run->forModel.lock() != session().model()) {
        return;
    }
    m_run = std::move(run);
    emit runChanged();
}

void CircuitsDocument::setViewed(bool viewed) {
    if (viewed != m_viewed) {
        m_viewed = viewed;
        emit viewedChanged(viewed);
    }
}

bool CircuitsDocument::dropModel() {
    const bool had = m_run != nullptr;
    m_run.reset();
    return had;
}

}  // namespace attnscope::app
