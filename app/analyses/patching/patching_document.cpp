#include "analyses/patching/patching_document.h"

#include "session/analysis_session.h"

namespace attnscope::app {

bool PatchingDocument::isCurrent(const Endpoints& endpoints) const {
    const auto clean = session().cleanResult();
    return clean && endpoints.forPass.lock() == clean;
}

void PatchingDocument::keepEndpoints(const std::shared_ptr<const Endpoints>& endpoints) {
    if (endpoints) {
        m_endpoints = endpoints;
    }
}

void PatchingDocument::setSweep(std::shared_ptr<const Sweep> sweep) {
    if (sweep) {
        keepEndpoints(sweep->endpoints);
    }
    m_sweep = std::move(sweep);
    emit sweepChanged();
}

void PatchingDocument::addPath(PathRow row) {
    keepEndpoints(row.endpoints);
    m_paths.push_back(std::move(row));
    emit pathsChanged();
}

void PatchingDocument::clearPaths() {
    m_paths.clear();
    emit pathsChanged();
}

bool PatchingDocument::dropModel() {
    const bool had = m_endpoints || m_sweep || !m_paths.empty();
    m_endpoints.reset();
    m_sweep.reset();
    m_paths.clear();
    return had;
}

}  // namespace attnscope::app
