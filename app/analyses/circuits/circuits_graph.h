// The composition graph of weight-space circuits (issue 34), shared by the tab and its figure:
// heads as nodes, a column per layer (left to right, the way the residual stream flows) and a
// row per head; an edge from an earlier head (the writer) to a later one (the reader) for each
// Q-, K- or V-composition score (analysis::WeightCircuits) whose excess over the random
// baseline 1/√d_model is above a threshold. Edges enter the reader on the side of what they
// compose into — upper left Q, left K, lower left V — and are coloured by kind, wider and more
// opaque the stronger. The numbers are the core's; this only picks and draws them. QtGui only.
#pragma once

#include <optional>
#include <vector>

#include <QColor>
#include <QPainterPath>
#include <QPointF>
#include <QRectF>
#include <QString>

#include "attnscope/analysis/weight_circuits.h"
#include "attnscope/base/head_id.h"

class QPainter;

namespace attnscope::app {

enum class CompositionKind { Q, K, V };

inline constexpr CompositionKind kCompositionKinds[] = {CompositionKind::Q, CompositionKind::K,
                                                        CompositionKind::V};

// One composition score; heads flattened as layer * nHeads + head (WeightCircuits' order).
struct CompositionEdge {
    int writer = 0;
    int reader = 0;
    CompositionKind kind = CompositionKind::Q;
    double score = 0;  // the core's, baseline not subtracted
};

// Which edges the graph draws: score − baseline > threshold, of the kinds shown.
struct EdgeFilter {
    double threshold = 0.1;
    bool shown[3] = {true, true, true};  // by CompositionKind
};

const std::vector<double>& compositionScores(const analysis::WeightCircuits& w,
                                             CompositionKind kind);

// "Q", "K", "V".
QString kindLetter(CompositionKind kind);

// Okabe–Ito blue (sky blue on dark backgrounds), vermillion, bluish green.
QColor kindColor(CompositionKind kind, bool dark);

HeadId headAt(const analysis::WeightCircuits& w, int flat);
int flatIndex(const analysis::WeightCircuits& w, HeadId head);

// The edges passing `filter`, strongest excess first (ties: Q, K, V, then writer, reader).
std::vector<CompositionEdge> compositionEdges(const analysis::WeightCircuits& w,
                                              const EdgeFilter& filter);

// `head`'s strongest composition scores of every kind: as the reader (`reads`, from earlier
// heads) or as the writer (into later ones); at most `count`, strongest first.
std::vector<CompositionEdge> strongestPartners(const analysis::WeightCircuits& w, int head,
                                               bool reads, int count);

// The threshold the graph opens with: the smallest multiple of 0.0001 (at least 0) that leaves
// no more than `maxEdges` edges of all kinds, so a 12 × 12-head model opens readable.
double defaultThreshold(const analysis::WeightCircuits& w, int maxEdges = 40);

// Where everything is for a graph drawn in `area` (legend strip included).
class GraphGeometry {
public:
    GraphGeometry(const QRectF& area, int layers, int heads, double fontHeight);

    QPointF node(HeadId head) const;

    double radius() const { return m_radius; }

    QRectF plot() const { return m_plot; }

    QRectF legend() const { return m_legend; }

    // The edge's curve from the writer's right to the reader's side for its kind.
    QPainterPath edgePath(const analysis::WeightCircuits& w, const CompositionEdge& e) const;
    // The node under `point`; none off every node.
    std::optional<HeadId> nodeAt(const QPointF& point) const;

private:
    QRectF m_plot;
    QRectF m_legend;
    int m_layers;
    int m_heads;
    double m_radius;
};

struct GraphColors {
    QColor background;
    QColor text;
    QColor node;
    QColor nodeOutline;
    QColor selected;
    bool dark = false;
};

// Paints the graph: headers, edges (those of `selected` on top, the others faded while a head
// is selected), nodes and the legend strip (kinds, the threshold and the baseline).
struct GraphPaint {
    const analysis::WeightCircuits* circuits = nullptr;
    const std::vector<CompositionEdge>* edges = nullptr;
    double threshold = 0;
    std::optional<HeadId> selected;
    GraphColors colors;
};

void paintCompositionGraph(QPainter& p, const GraphGeometry& g, const GraphPaint& what);

}  // namespace attnscope::app
