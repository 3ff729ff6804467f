#include "analyses/lens/lens_document.h"

#include "session/analysis_session.h"

namespace attnscope::app {

void LensDocument::setTopK(int k) {
    if (k != m_topK && k >= 1) {
        m_topK = k;
        emit wantChanged();
    }
}

std::optional<LensDocument::PickedAt> LensDocument::pickedNow() const {
    const std::optional<std::int32_t> target = session().pickedTokens().target;
    const int position = session().predictionPosition();
    if (!target || position < 0) {
        return std::nullopt;
    }
    return PickedAt{position, *target};
}

bool LensDocument::isCurrent(const Run& run) const {
    const auto clean = session().cleanResult();
    return clean && run.forPass.lock() == clean && run.topK == m_topK && run.picked == pickedNow();
}

void LensDocument::setRun(std::shared_ptr<const Run> run) {
    if (!run || run->forPass.lock() != session().cleanResult()) {
        return;
    }
    m_run = std::move(run);
    emit runChanged();
}

void LensDocument::setViewed(bool viewed) {
    if (viewed != m_viewed) {
        m_viewed = viewed;
        emit wantChanged();
    }
}

bool LensDocument::dropModel() {
    const bool had = m_run != nullptr;
    m_run.reset();
    return had;
}

}  // namespace attnscope::app
