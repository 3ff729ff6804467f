// Draws attention maps into a rectangle on any paint device: the cells of a one-pixel-per-cell
// image (heatmap_image.h), either as an image or as one rectangle per cell, and a diagonal
// hatch over masked cells. Shared by the figure export and anything else that paints heads.
// QtGui only; pure painting.
#pragma once

#include <vector>

#include <QColor>
#include <QImage>
#include <QRectF>

#include "attnscope/base/tensor.h"
#include "render/heatmap_image.h"

class QPainter;

namespace attnscope::render {

// The smallest range that covers each of `ranges` (same scaling and colour map assumed).
ColorRange unionRange(const std::vector<ColorRange>& ranges);

enum class CellDrawing {
    Image,       // one image, nearest-neighbour when enlarged, area-averaged when shrunk
    Rectangles,  // one filled rectangle per run of equal cells: true vector output
};

// Paints `cells` (one pixel per cell) stretched over `target`.
void paintHeatCells(QPainter& painter, const QRectF& target, const QImage& cells,
                    CellDrawing drawing);

struct HatchStyle {
    QColor color{0x55, 0x55, 0x55};
    double spacing = 8;    // between the lines, in painter units
    double lineWidth = 1;  // in painter units
};

// Diagonal lines ("/") over every cell of `target` that `allowed` forbids. The lines run on
// one lattice across the whole map, so neighbouring masked cells read as one hatched region.
void paintMaskHatch(QPainter& painter, const QRectF& target, const BoolMatrix& allowed,
                    const HatchStyle& style);

// The legend swatch: flat masked grey, hatched, framed.
void paintMaskSwatch(QPainter& painter, const QRectF& swatch, const HatchStyle& style);

}  // namespace attnscope::render
