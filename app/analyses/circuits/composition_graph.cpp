#include "analyses/circuits/composition_graph.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPathStroker>
#include <QToolTip>

#include "analyses/circuits/circuits_text.h"
#include "widgets/chart_palette.h"

namespace attnscope::app {

CompositionGraph::CompositionGraph(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void CompositionGraph::setRun(std::shared_ptr<const CircuitsDocument::Run> run,
                              const EdgeFilter& filter) {
    m_run = std::move(run);
    setFilter(filter);
}

void CompositionGraph::setFilter(const EdgeFilter& filter) {
    m_filter = filter;
    m_edges = m_run ? compositionEdges(m_run->circuits, m_filter) : std::vector<CompositionEdge>{};
    update();
}

void CompositionGraph::setSelected(std::optional<HeadId> head) {
    if (head != m_selected) {
        m_selected = head;
        update();
    }
}

GraphGeometry CompositionGraph::geometry(const QRectF& area) const {
    const int layers = m_run ? m_run->circuits.nLayers : 1;
    const int heads = m_run ? m_run->circuits.nHeads : 1;
    return {area.adjusted(6, 4, -4, -2), layers, heads, QFontMetricsF(font()).height()};
}

GraphPaint CompositionGraph::paintOf(const GraphColors& colors) const {
    return {&m_run->circuits, &m_edges, m_filter.threshold, m_selected, colors};
}

QPointF CompositionGraph::nodeCenter(HeadId head) const {
    return geometry(rect()).node(head);
}

QPointF CompositionGraph::edgeMiddle(const CompositionEdge& e) const {
    return geometry(rect()).edgePath(m_run->circuits, e).pointAtPercent(0.5);
}

std::optional<CompositionEdge> CompositionGraph::edgeAt(const QPointF& point) const {
    const GraphGeometry g = geometry(rect());
    QPainterPathStroker stroker;
    stroker.setWidth(7);
    for (const CompositionEdge& e : m_edges) {
        const bool faded = m_selected && e.writer != flatIndex(m_run->circuits, *m_selected) &&
                           e.reader != flatIndex(m_run->circuits, *m_selected);
        if (!faded && stroker.createStroke(g.edgePath(m_run->circuits, e)).contains(point)) {
            return e;
        }
    }
    for (const CompositionEdge& e : m_edges) {
        if (stroker.createStroke(g.edgePath(m_run->circuits, e)).contains(point)) {
            return e;
        }
    }
    return std::nullopt;
}

QString CompositionGraph::toolTipAt(const QPoint& point) const {
    if (!m_run) {
        return {};
    }
    if (const auto head = geometry(rect()).nodeAt(point)) {
        return nodeToolTip(m_run->circuits, *head);
    }
    if (const auto e = edgeAt(point)) {
        return edgeToolTip(m_run->circuits, *e);
    }
    return {};
}

bool CompositionGraph::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty()) {
            QToolTip::hideText();
            event->ignore();
        } else {
            QToolTip::showText(help->globalPos(), text, this);
        }
        return true;
    }
    return QWidget::event(event);
}

void CompositionGraph::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Base));
    if (!m_run) {
        return;
    }
    const bool dark = isDarkPalette(pal);
    const GraphColors colors{pal.color(QPalette::Base),
                             pal.color(QPalette::Text),
                             pal.color(QPalette::Button),
                             pal.color(QPalette::Mid),
                             pal.color(QPalette::Highlight).lighter(dark ? 100 : 150),
                             dark};
    paintCompositionGraph(p, geometry(rect()), paintOf(colors));
}

void CompositionGraph::paintFigure(QPainter& p, const QSize& size, const QString& title) const {
    if (!m_run) {
        return;
    }
    const GraphColors colors{
        Qt::white, Qt::black, QColor(235, 235, 235), QColor(120, 120, 120), QColor(255, 214, 102),
        false};
    p.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    const double fontHeight = QFontMetricsF(p.font()).height();
    QRectF area = QRectF(QPointF(0, 0), QSizeF(size)).adjusted(12, 12, -12, -8);
    if (!title.isEmpty()) {
        QFont bold = p.font();
        bold.setBold(true);
        p.save();
        p.setFont(bold);
        p.setPen(Qt::black);
        p.drawText(QRectF(area.left(), area.top(), area.width(), 1.4 * fontHeight),
                   Qt::AlignLeft | Qt::AlignVCenter, title);
        p.restore();
        area.setTop(area.top() + 1.8 * fontHeight);
    }
    const GraphGeometry g(area, m_run->circuits.nLayers, m_run->circuits.nHeads, fontHeight);
    // Every edge at its strength: a figure is of the graph, not of a selection.
    GraphPaint what = paintOf(colors);
    what.selected.reset();
    paintCompositionGraph(p, g, what);
}

void CompositionGraph::mousePressEvent(QMouseEvent* event) {
    if (m_run && event->button() == Qt::LeftButton) {
        if (const auto head = geometry(rect()).nodeAt(event->position())) {
            emit headClicked(*head);
            return;
        }
    }
    QWidget::mousePressEvent(event);
}

void CompositionGraph::mouseMoveEvent(QMouseEvent* event) {
    const bool onNode = m_run && geometry(rect()).nodeAt(event->position()).has_value();
    setCursor(onNode ? Qt::PointingHandCursor : Qt::ArrowCursor);
    QWidget::mouseMoveEvent(event);
}

}  // namespace attnscope::app
