#include "analyses/saturation/saturation_document.h"

#include "session/analysis_session.h"

namespace attnscope::app {

std::shared_ptr<const SaturationDocument::Baseline> SaturationDocument::currentBaseline() const {
    const auto clean = session().cleanResult();
    return m_baseline && clean && m_baseline->forPass.lock() == clean ? m_baseline : nullptr;
}

void SaturationDocument::setBaseline(std::shared_ptr<const Baseline> baseline) {
    if (!baseline || baseline->forPass.lock() != session().cleanResult()) {
        return;
    }
    m_baseline = std::move(baseline);
    emit baselineChanged();
}

void SaturationDocument::clearBaseline() {
    if (m_baseline) {
        m_baseline.reset();
        emit baselineChanged();
    }
}

bool SaturationDocument::dropModel() {
    const bool had = m_baseline != nullptr;
    m_baseline.reset();
    return had;
}

}  // namespace attnscope::app
