// The Circuits tab's composition graph as a widget (issue 34; circuits_graph.h draws it): a
// hovered node or edge shows its exact scores in a tool tip, a click on a node emits
// headClicked. It takes the run and the filter from the view and keeps the edges it draws.
// GUI thread only.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <QWidget>

#include "analyses/circuits/circuits_document.h"
#include "analyses/circuits/circuits_graph.h"
#include "session/meta_types.h"

namespace attnscope::app {

class CompositionGraph : public QWidget {
    Q_OBJECT

public:
    explicit CompositionGraph(QWidget* parent = nullptr);

    // Null clears the graph.
    void setRun(std::shared_ptr<const CircuitsDocument::Run> run, const EdgeFilter& filter);
    void setFilter(const EdgeFilter& filter);
    void setSelected(std::optional<HeadId> head);

    // The edges drawn, strongest first.
    const std::vector<CompositionEdge>& edges() const { return m_edges; }

    // Where a head's node is, in widget coordinates, at the current size.
    QPointF nodeCenter(HeadId head) const;
    // The middle of an edge's curve (for hovering it).
    QPointF edgeMiddle(const CompositionEdge& e) const;

    // What hovering `point` shows: a node's or the topmost edge's scores; empty elsewhere.
    QString toolTipAt(const QPoint& point) const;

    // The graph for a figure: the same drawing at `size` under `title`, light colours, no head
    // singled out.
    void paintFigure(QPainter& p, const QSize& size, const QString& title) const;

    QSize sizeHint() const override { return {520, 420}; }

    QSize minimumSizeHint() const override { return {240, 200}; }

signals:
    void headClicked(attnscope::HeadId head);

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    GraphGeometry geometry(const QRectF& area) const;
    GraphPaint paintOf(const GraphColors& colors) const;
    std::optional<CompositionEdge> edgeAt(const QPointF& point) const;

    std::shared_ptr<const CircuitsDocument::Run> m_run;
    EdgeFilter m_filter;
    std::vector<CompositionEdge> m_edges;
    std::optional<HeadId> m_selected;
};

}  // namespace attnscope::app
