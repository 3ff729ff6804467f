#include "analyses/circuits/circuits_graph.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <tuple>

#include <QFontMetricsF>
#include <QObject>
#include <QPainter>

namespace attnscope::app {

namespace {

double excess(const analysis::WeightCircuits& w, const CompositionEdge& e) {
    return e.score - w.baseline;
}

// Strongest first; ties in a fixed order so the graph and the tests agree.
void sortStrongestFirst(std::vector<CompositionEdge>& edges) {
    std::stable_sort(edges.begin(), edges.end(),
                     [](const CompositionEdge& a, const CompositionEdge& b) {
                         return std::tuple(-a.score, a.kind, a.writer, a.reader) <
                                std::tuple(-b.score, b.kind, b.writer, b.reader);
                     });
}

// Where an edge of `kind` enters its reader: the unit vector from the node's centre.
QPointF portDirection(CompositionKind kind) {
    constexpr double kAngle = 50.0 * std::numbers::pi / 180.0;
    const double side = kind == CompositionKind::Q ? -1.0 : kind == CompositionKind::K ? 0.0 : 1.0;
    return {-std::cos(side * kAngle), std::sin(side * kAngle)};
}

}  // namespace

const std::vector<double>& compositionScores(const analysis::WeightCircuits& w,
                                             CompositionKind kind) {
    switch (kind) {
        case CompositionKind::Q:
            return w.compQ;
        case CompositionKind::K:
            return w.compK;
        case CompositionKind::V:
            break;
    }
    return w.compV;
}

QString kindLetter(CompositionKind kind) {
    switch (kind) {
        case CompositionKind::Q:
            return QStringLiteral("Q");
        case CompositionKind::K:
            return QStringLiteral("K");
        case CompositionKind::V:
            break;
    }
    return QStringLiteral("V");
}

QColor kindColor(CompositionKind kind, bool dark) {
    switch (kind) {
        case CompositionKind::Q:
            return dark ? QColor(0x56, 0xB4, 0xE9) : QColor(0x00, 0x72, 0xB2);
        case CompositionKind::K:
            return QColor(0xD5, 0x5E, 0x00);
        case CompositionKind::V:
            break;
    }
    return QColor(0x00, 0x9E, 0x73);
}

HeadId headAt(const analysis::WeightCircuits& w, int flat) {
    return {flat / w.nHeads, flat % w.nHeads};
}

int flatIndex(const analysis::WeightCircuits& w, HeadId head) {
    return head.layer * w.nHeads + head.head;
}

std::vector<CompositionEdge> compositionEdges(const analysis::WeightCircuits& w,
                                              const EdgeFilter& filter) {
    std::vector<CompositionEdge> edges;
    const auto n = static_cast<int>(w.heads.size());
    for (const CompositionKind kind : kCompositionKinds) {
        if (!filter.shown[static_cast<int>(kind)]) {
            continue;
        }
        const std::vector<double>& scores = compositionScores(w, kind);
        for (int h1 = 0; h1 < n; ++h1) {
            // Only later layers compose with h1 (the core leaves the rest 0).
            for (int h2 = (h1 / w.nHeads + 1) * w.nHeads; h2 < n; ++h2) {
                const CompositionEdge e{h1, h2, kind, w.composition(scores, h1, h2)};
                if (excess(w, e) > filter.threshold) {
                    edges.push_back(e);
                }
            }
        }
    }
    sortStrongestFirst(edges);
    return edges;
}

std::vector<CompositionEdge> strongestPartners(const analysis::WeightCircuits& w, int head,
                                               bool reads, int count) {
    std::vector<CompositionEdge> edges;
    const int layer = head / w.nHeads;
    const int first = reads ? 0 : (layer + 1) * w.nHeads;
    const int end = reads ? layer * w.nHeads : static_cast<int>(w.heads.size());
    for (const CompositionKind kind : kCompositionKinds) {
        for (int other = first; other < end; ++other) {
            const int writer = reads ? other : head;
            const int reader = reads ? head : other;
            edges.push_back(
                {writer, reader, kind, w.composition(compositionScores(w, kind), writer, reader)});
        }
    }
    sortStrongestFirst(edges);
    edges.resize(std::min(edges.size(), static_cast<std::size_t>(std::max(count, 0))));
    return edges;
}

double defaultThreshold(const analysis::WeightCircuits& w, int maxEdges) {
    EdgeFilter all;
    all.threshold = -1e300;
    const std::vector<CompositionEdge> edges = compositionEdges(w, all);
    if (edges.size() <= static_cast<std::size_t>(maxEdges)) {
        return 0.0;
    }
    // Edges strictly above t are drawn: the excess of the first left out, up to 0.0001 (the spin
    // box's step; random or barely trained heads sit within thousandths of the baseline).
    const double at = excess(w, edges[static_cast<std::size_t>(maxEdges)]);
    return std::max(0.0, std::ceil(at * 1e4 - 1e-9) / 1e4);
}

GraphGeometry::GraphGeometry(const QRectF& area, int layers, int heads, double fontHeight)
    : m_layers(std::max(layers, 1)), m_heads(std::max(heads, 1)) {
    const double legendHeight = 2.8 * fontHeight;  // the kinds, then the rule
    m_legend = QRectF(area.left(), area.bottom() - legendHeight, area.width(), legendHeight);
    m_plot = QRectF(area.left() + 3.2 * fontHeight, area.top() + 1.8 * fontHeight,
                    area.width() - 3.2 * fontHeight - 8.0,
                    area.height() - 1.8 * fontHeight - legendHeight - 6.0);
    const double dx = m_plot.width() / m_layers;
    const double dy = m_plot.height() / m_heads;
    m_radius = std::clamp(std::min(0.16 * dx, 0.34 * dy), 3.0, 18.0);
}

QPointF GraphGeometry::node(HeadId head) const {
    return {m_plot.left() + m_plot.width() / m_layers * (head.layer + 0.5),
            m_plot.top() + m_plot.height() / m_heads * (head.head + 0.5)};
}

QPainterPath GraphGeometry::edgePath(const analysis::WeightCircuits& w,
                                     const CompositionEdge& e) const {
    const QPointF start = node(headAt(w, e.writer)) + QPointF(m_radius, 0);
    const QPointF dir = portDirection(e.kind);
    const QPointF end = node(headAt(w, e.reader)) + dir * m_radius;
    const double pull = std::max(0.4 * (end.x() - start.x()), 2.0 * m_radius);
    // Into the port from close by: a long edge would otherwise swing past the plot's edge.
    const double arrive = std::min(pull, 4.0 * m_radius + 12.0);
    QPainterPath path(start);
    path.cubicTo(start + QPointF(pull, 0), end + dir * arrive, end);
    return path;
}

std::optional<HeadId> GraphGeometry::nodeAt(const QPointF& point) const {
    const double dx = m_plot.width() / m_layers;
    const double dy = m_plot.height() / m_heads;
    const int layer = static_cast<int>(std::floor((point.x() - m_plot.left()) / dx));
    const int head = static_cast<int>(std::floor((point.y() - m_plot.top()) / dy));
    if (layer < 0 || head < 0 || layer >= m_layers || head >= m_heads) {
        return std::nullopt;
    }
    const QPointF d = point - node({layer, head});
    const double reach = m_radius + 3.0;
    if (d.x() * d.x() + d.y() * d.y() > reach * reach) {
        return std::nullopt;
    }
    return HeadId{layer, head};
}

namespace {

void paintHeaders(QPainter& p, const GraphGeometry& g, const analysis::WeightCircuits& w,
                  const GraphColors& colors) {
    p.setPen(colors.text);
    const QFontMetricsF fm(p.font());
    for (int l = 0; l < w.nLayers; ++l) {
        const QPointF c = g.node({l, 0});
        const QString text = QStringLiteral("L%1").arg(l);
        p.drawText(QRectF(c.x() - 40, g.plot().top() - 1.6 * fm.height(), 80, fm.height()),
                   Qt::AlignCenter, text);
    }
    for (int h = 0; h < w.nHeads; ++h) {
        const QPointF c = g.node({0, h});
        p.drawText(QRectF(g.plot().left() - 3.0 * fm.height(), c.y() - fm.height() / 2,
                          2.6 * fm.height(), fm.height()),
                   Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("H%1").arg(h));
    }
}

void paintEdges(QPainter& p, const GraphGeometry& g, const GraphPaint& what) {
    const analysis::WeightCircuits& w = *what.circuits;
    const std::vector<CompositionEdge>& edges = *what.edges;
    if (edges.empty()) {
        return;
    }
    const double strongest = excess(w, edges.front());
    const double span = std::max(strongest - what.threshold, 1e-12);
    const double maxWidth = std::clamp(g.radius() * 0.45, 1.5, 5.0);
    const int selected = what.selected ? flatIndex(w, *what.selected) : -1;
    const auto touches = [selected](const CompositionEdge& e) {
        return e.writer == selected || e.reader == selected;
    };
    // Faded ones first, the selected head's on top; within each the weakest first.
    for (const bool top : {false, true}) {
        for (auto it = edges.rbegin(); it != edges.rend(); ++it) {
            const bool emphasised = selected < 0 || touches(*it);
            if (emphasised != top) {
                continue;
            }
            const double t = std::clamp((excess(w, *it) - what.threshold) / span, 0.0, 1.0);
            QColor c = kindColor(it->kind, what.colors.dark);
            c.setAlphaF(static_cast<float>((0.4 + 0.55 * t) * (emphasised ? 1.0 : 0.3)));
            p.setPen(QPen(c, 0.8 + (maxWidth - 0.8) * t, Qt::SolidLine, Qt::RoundCap));
            p.setBrush(Qt::NoBrush);
            p.drawPath(g.edgePath(w, *it));
        }
    }
}

void paintNodes(QPainter& p, const GraphGeometry& g, const GraphPaint& what) {
    const analysis::WeightCircuits& w = *what.circuits;
    const QFont normal = p.font();
    QFont small = p.font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8));
    const QFontMetricsF fm(small);
    // Every node named or none: the widest name decides.
    const QString widest = QStringLiteral("%1.%2").arg(w.nLayers - 1).arg(w.nHeads - 1);
    const bool named = fm.horizontalAdvance(widest) < 1.7 * g.radius();
    for (int l = 0; l < w.nLayers; ++l) {
        for (int h = 0; h < w.nHeads; ++h) {
            const HeadId head{l, h};
            const bool selected = what.selected == head;
            const QPointF c = g.node(head);
            p.setPen(
                QPen(selected ? what.colors.text : what.colors.nodeOutline, selected ? 2.5 : 1.0));
            p.setBrush(selected ? what.colors.selected : what.colors.node);
            p.drawEllipse(c, g.radius(), g.radius());
            const QString label = QStringLiteral("%1.%2").arg(l).arg(h);
            if (named) {
                p.setFont(small);
                p.setPen(what.colors.text);
                p.drawText(
                    QRectF(c.x() - g.radius(), c.y() - g.radius(), 2 * g.radius(), 2 * g.radius()),
                    Qt::AlignCenter, label);
                p.setFont(normal);
            }
        }
    }
}

void paintLegend(QPainter& p, const GraphGeometry& g, const GraphPaint& what) {
    const QFontMetricsF fm(p.font());
    const QRectF box = g.legend();
    double x = box.left() + 4;
    const QRectF first(box.left(), box.top() + 0.2 * fm.height(), box.width(), 1.2 * fm.height());
    const double y = first.center().y();
    const QString full[] = {QObject::tr("Q-composition"), QObject::tr("K-composition"),
                            QObject::tr("V-composition")};
    double need = 0;
    for (const QString& name : full) {
        need += 44 + fm.horizontalAdvance(name);
    }
    const bool letters = need > box.width();
    for (const CompositionKind kind : kCompositionKinds) {
        p.setPen(QPen(kindColor(kind, what.colors.dark), 3.0, Qt::SolidLine, Qt::RoundCap));
        p.drawLine(QPointF(x, y), QPointF(x + 22, y));
        x += 28;
        const QString name = letters ? kindLetter(kind) : full[static_cast<int>(kind)];
        p.setPen(what.colors.text);
        p.drawText(QRectF(x, first.top(), fm.horizontalAdvance(name) + 2, first.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, name);
        x += fm.horizontalAdvance(name) + 16;
    }
    const QString rule =
        QObject::tr(
            "An edge: writer → reader where score − baseline 1/√d_model (%1) > %2; "
            "wider and darker = stronger")
            .arg(what.circuits->baseline, 0, 'f', 4)
            .arg(what.threshold, 0, 'f', 4);
    const QRectF second(box.left() + 4, first.bottom(), box.width() - 4, 1.3 * fm.height());
    p.setPen(what.colors.text);
    p.drawText(second, Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(rule, Qt::ElideRight, second.width()));
}

}  // namespace

void paintCompositionGraph(QPainter& p, const GraphGeometry& g, const GraphPaint& what) {
    p.save();
    p.setRenderHint(QPainter::Antialiasing);
    paintHeaders(p, g, *what.circuits, what.colors);
    paintEdges(p, g, what);
    paintNodes(p, g, what);
    paintLegend(p, g, what);
    p.restore();
}

}  // namespace attnscope::app
