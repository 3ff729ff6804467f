// HeadView's attribution maps (issue 19), apart from head_view.cpp: per-head methods show the
// selected head, per-layer ones its layer; while the chosen method computes, the map shown
// before stays (the status line above it gives the progress and a Cancel button).
#include "session/analysis_session.h"
#include "views/head_view.h"
#include "views/heatmap_widget.h"
#include "views/method_selector.h"

namespace attnscope::app {

using analysis::AttributionMethod;

bool HeadView::refreshAttribution(const QStringList& tokens) {
    m_methodMap.reset();
    const AttributionMethod chosen = m_session->headViewMethod();
    if (chosen == AttributionMethod::Raw) {
        m_methodStatus->watch({});
        m_shownMethod = chosen;
        return false;
    }
    AttributionMethod method = chosen;
    AttributionPtr maps = m_session->attribution(chosen);
    m_methodStatus->watch({chosen});  // after asking: the request is what it shows
    if (!maps && m_shownMethod != AttributionMethod::Raw) {
        method = m_shownMethod;
        maps = m_session->attributionState(method).maps;
    }
    if (!maps) {
        m_shownMethod = AttributionMethod::Raw;  // the head's own map until the chosen one comes
        return false;
    }
    m_shownMethod = method;
    const HeadId h = m_session->selectedHead();
    m_methodMap = attributionMatrix(*maps, h, true);
    showAttributionMap(m_heatmap, *m_methodMap, method, attributionMapTitle(method, h, true),
                       tokens, m_session->heatmapStyle());
    m_heatmap->setOutlinedCells(goldCells(false));
    m_heatmap->setAccentCells(corefCells(false), corefColor());
    return true;
}

}  // namespace attnscope::app
