// HeadView's attribution maps (issue 19), apart from head_view.cpp: per-head methods show the
// selected head, per-layer ones its layer; while the chosen method computes, the map shown
// before stays (the status line above it gives the progress and a Cancel button).
#include <QLabel>

#include "session/analysis_session.h"
#include "views/head_view.h"
#include "views/heatmap_widget.h"
#include "views/method_selector.h"

namespace attnscope::app {

using analysis::AttributionMethod;

bool HeadView::refreshAttribution(const QStringList& tokens) {
    m_methodMap.reset();
    const AttributionMethod chosen = m_session->attributions().headViewMethod();
    if (chosen == AttributionMethod::Raw) {
        m_methodStatus->watch({});
        m_shownMethod = chosen;
        return false;
    }
    AttributionMethod method = chosen;
    AttributionPtr maps = m_session->attributions().maps(chosen);
    m_methodStatus->watch({chosen});  // after asking: the request is what it shows
    if (!maps && m_shownMethod != AttributionMethod::Raw) {
        method = m_shownMethod;
        maps = m_session->attributions().state(method).maps;
    }
    if (!maps) {
        m_shownMethod = AttributionMethod::Raw;  // the head's own map until the chosen one comes
        return false;
    }
    m_shownMethod = method;
    const HeadId h = m_session->selectedHead();
    m_methodMap = attributionMatrix(*maps, h, true);
    const bool perHead = analysis::hasHeadMaps(method);
    const QString title = attributionMapTitle(method, h, true);
    showAttributionMap(m_heatmap, *m_methodMap, method,
                       perHead ? title : tr("%1 — rows: receiving, columns: source").arg(title),
                       tokens, m_session->heatmapStyle());
    // The head's statistics describe its attention, not this map: say what the map measures.
    // Short, or it wraps into a block above the map on a laptop; the tool tip says more.
    QString info = perHead ? tr("This head's %1 (the colour bar runs to the map's largest)")
                                 .arg(methodValueName(method))
                           : tr("The layer's map, whichever head is selected");
    if (!m_session->ablations().empty()) {
        info += tr(" · Attribution of the unablated model");
    }
    m_info->setText(info);
    m_info->setToolTip(methodMeaning(method));
    m_heatmap->setOutlinedCells(goldCells(false));
    m_heatmap->setAccentCells(corefCells(false), corefColor());
    return true;
}

}  // namespace attnscope::app
