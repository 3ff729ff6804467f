// AnalysisSession's ablation list: kept canonical and free of overlaps, so that the list the
// service passes to the core never fails resolveAblations for a head ablated twice.
#include <algorithm>
#include <tuple>

#include "session/analysis_session.h"

namespace attnscope::app {

namespace {

// Layer, then groups before query heads, then target: the order the CLI prints and the core
// reports, whatever order the user clicked in.
bool canonicalLess(const forward::HeadAblation& a, const forward::HeadAblation& b) {
    return std::tuple(a.layer, !a.kvGroup, a.target) < std::tuple(b.layer, !b.kvGroup, b.target);
}

}  // namespace

bool AnalysisSession::hasKvGroups() const {
    return m_model && m_model->spec.nKvHeads > 0 && m_model->spec.nKvHeads < m_model->spec.nHeads;
}

std::optional<forward::HeadAblation> AnalysisSession::ablationCovering(HeadId head) const {
    for (const forward::HeadAblation& a : m_ablations) {
        if (a.layer != head.layer) {
            continue;
        }
        const bool covers = a.kvGroup ? m_model && m_model->spec.kvHeadOf(head.head) == a.target
                                      : a.target == head.head;
        if (covers) {
            return a;
        }
    }
    return std::nullopt;
}

void AnalysisSession::setAblations(std::vector<forward::HeadAblation> ablations) {
    std::sort(ablations.begin(), ablations.end(), canonicalLess);
    const auto same = [](const forward::HeadAblation& a, const forward::HeadAblation& b) {
        return a.layer == b.layer && a.target == b.target && a.kvGroup == b.kvGroup &&
               a.kind == b.kind;
    };
    if (std::equal(ablations.begin(), ablations.end(), m_ablations.begin(), m_ablations.end(),
                   same)) {
        return;
    }
    m_ablations = std::move(ablations);
    emit ablationsChanged();
}

void AnalysisSession::ablateHead(HeadId head, forward::AblationKind kind, bool kvGroup) {
    if (const QString why = unsupportedReason(); !why.isEmpty()) {
        reportError(tr("Ablation: %1").arg(why));
        return;
    }
    if (!m_model || head.layer < 0 || head.layer >= layerCount() || head.head < 0 ||
        head.head >= headCount()) {
        return;
    }
    kvGroup = kvGroup && hasKvGroups();  // without shared key/value heads a group is the head
    const model::ModelSpec& spec = m_model->spec;
    const int group = spec.kvHeadOf(head.head);
    std::vector<forward::HeadAblation> next;
    for (const forward::HeadAblation& a : m_ablations) {
        const int aGroup = a.kvGroup ? a.target : spec.kvHeadOf(a.target);
        const bool overlaps = a.layer == head.layer &&
                              (kvGroup || a.kvGroup ? aGroup == group : a.target == head.head);
        if (!overlaps) {
            next.push_back(a);
        }
    }
    next.push_back({head.layer, kvGroup ? group : head.head, kvGroup, kind});
    setAblations(std::move(next));
}

void AnalysisSession::clearAblation(HeadId head) {
    const auto covering = ablationCovering(head);
    if (!covering) {
        return;
    }
    std::vector<forward::HeadAblation> next;
    for (const forward::HeadAblation& a : m_ablations) {
        if (a.layer != covering->layer || a.target != covering->target ||
            a.kvGroup != covering->kvGroup) {
            next.push_back(a);
        }
    }
    setAblations(std::move(next));
}

void AnalysisSession::clearAblations() {
    setAblations({});
}

void AnalysisSession::setAblatedResult(AblatedResult result) {
    m_clean = std::move(result.clean);
    m_effects = std::move(result.effects);
    m_meanSource = std::move(result.meanSource);
    applyResult(std::move(result.ablated));
}

}  // namespace attnscope::app
