// Lays out and paints a figure of one or more attention maps: a title block, the maps as small
// multiples on a grid (each with optional token labels, caption, row and column headers), one
// shared colour bar with a "masked" legend. Maps are [nTokens, keyCount()]: cells stay square,
// so a cross-attention map's panel is as wide as it has source tokens.
//
// Sizes are physical: fonts and gaps are given in points and converted with the figure's DPI,
// so the same figure comes out alike in PNG, SVG and PDF. Cell sizes of at least a few pixels
// are whole pixels, so PNG cells are crisp. Token labels shrink with the cells down to a
// readable minimum; below it they are thinned (every k-th) or left out, as the content asks.
// figure.h builds FigureContent from an analysis; this file knows nothing about models.
// QtGui only; pure painting (needs a QGuiApplication for fonts).
#pragma once

#include <vector>

#include <QSize>
#include <QString>
#include <QStringList>

#include "attnscope/base/head_id.h"
#include "attnscope/forward/forward_result.h"
#include "render/heatmap_image.h"

class QPainter;

namespace attnscope::render {

struct FigurePanel {
    HeadId head;
    int row = 0;
    int col = 0;
    QString caption;  // above the map ("layer 3, head 7"); empty for none
};

enum class TokenLabelPlacement {
    EveryPanel,   // each map has its own query and key labels
    OuterPanels,  // only the left column (queries) and top row (keys), as small multiples do
};

struct FigureContent {
    const forward::ForwardResult* forward = nullptr;  // the maps and the mask; not owned
    QStringList tokenLabels;                          // [nTokens] the rows (queries)
    // [keyCount()] the columns; empty: tokenLabels, the rows' own tokens (self-attention).
    QStringList keyLabels;
    std::vector<FigurePanel> panels;
    int rows = 1;
    int cols = 1;
    QStringList rowHeaders;  // [rows] left of each grid row ("L0"); may be empty
    QStringList colHeaders;  // [cols] above each grid column ("H0"); may be empty
    TokenLabelPlacement labelPlacement = TokenLabelPlacement::EveryPanel;
    bool thinLabels = false;  // too small to label every token: label every k-th (else none)
    bool axisTitles = false;  // rowAxisTitle left of the rows, colAxisTitle above the columns
    QString rowAxisTitle = QStringLiteral("query");
    QString colAxisTitle = QStringLiteral("key");
    QString title;     // bold first line
    QString subtitle;  // the sentence
    QString note;      // small grey line: token count, mask, conventions
    HeatmapStyle style;
    ColorRange range;  // shared by every panel and shown by the colour bar
};

// The mask to draw for a head of `layer`: the result's mask of that layer ([nTokens,
// keyCount()], allowedFor) when some cell is masked, else null.
const BoolMatrix* figureMask(const forward::ForwardResult& result, int layer = 0);

// Paints `content` over (0, 0)-(size) of the painter's coordinates, white background
// included. `dpi` converts point sizes to those coordinates (units per inch).
void paintFigure(QPainter& painter, QSizeF size, double dpi, const FigureContent& content);

}  // namespace attnscope::render
