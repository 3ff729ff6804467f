// One layers × heads heatmap as a figure for export, the shape the Dependencies and Importance
// docks share: a bold title and a wrapped subtitle, the cells with layer and column numbers
// (every number when they fit, else every second, fourth, …), one cell outlined and a colour
// bar. QtGui only; pure painting.
#pragma once

#include <optional>

#include <QColor>
#include <QSize>
#include <QString>

#include "attnscope/base/head_id.h"
#include "attnscope/base/tensor.h"
#include "render/heatmap_image.h"

class QPainter;

namespace attnscope::app {

struct HeatGridFigure {
    Matrix values;  // [nLayers, columns]
    QString title;
    QString subtitle;
    QString columnAxis;  // "head", "key/value group"
    render::HeatmapStyle style;
    render::ColorRange range;
    double cell = 48;                // pixels per cell
    double titleHeight = 90;         // the title block, subtitle included
    double subtitleHeight = 40;      // room for the subtitle's wrapped lines
    double barLabelWidth = 110;      // room right of the colour bar for its ticks and caption
    std::optional<HeadId> outlined;  // the cell (layer, column) to outline
    QColor outlineColor = Qt::white;
};

// A figure of `values` under `title` and `subtitle`, its columns along `columnAxis`; the rest as
// declared above.
HeatGridFigure heatGridFigure(Matrix values, QString title, QString subtitle, QString columnAxis);

// The page the figure needs at its cell size (callers may enlarge it).
QSizeF heatGridFigureExtent(const HeatGridFigure& figure);

void paintHeatGridFigure(QPainter& painter, const QSize& size, const HeatGridFigure& figure);

// Writes the figure as PNG, SVG or PDF by the extension of `path`, on a page at least 900 × 400
// pixels; throws Error when the file cannot be written (render::writeFigureFile).
void writeHeatGridFigure(const QString& path, const HeatGridFigure& figure);

}  // namespace attnscope::app
