// Turns one attention map into a raster image, one pixel per cell (row = query, column =
// key), so views and exports can scale it without recomputing colours and 512 tokens stay
// fluid. QtGui only; pure functions.
#pragma once

#include <QColor>
#include <QImage>
#include <QString>

#include "attnscope/base/tensor.h"
#include "render/colormap.h"

namespace attnscope::render {

enum class Scaling {
    Linear,  // 0 .. the map's largest weight
    Log,     // log10, from 1e-4 (or the smallest positive weight, if larger) .. the largest
    PerRow,  // each query row divided by its own maximum
};

QString scalingName(Scaling s);
bool scalingFromName(const QString& name, Scaling* out);

struct HeatmapStyle {
    Colormap colormap = Colormap::Viridis;
    Scaling scaling = Scaling::Linear;
};

// What the colours mean, for the colour bar.
struct ColorRange {
    double lo = 0.0;
    double hi = 1.0;
    Scaling scaling = Scaling::Linear;
    Colormap colormap = Colormap::Viridis;
    QString caption;  // "attention weight", "log10 attention weight", "weight / row max", ...
};

// Masked cells are flat mid grey, distinct from every colour of the maps.
QColor maskedCellColor();
// Cells holding NaN or Inf (non-finite weights) are magenta, a colour no map uses, so they are
// never read as a weight of zero.
QColor nonFiniteCellColor();

// The range heatmapImage colours `values` against: its own, over the allowed cells.
ColorRange colorRangeOf(const Eigen::Ref<const Matrix>& values, const BoolMatrix* allowed,
                        const HeatmapStyle& style);

// `allowed` may be null (nothing masked); otherwise [rows, cols] with 0 = masked.
QImage heatmapImage(const Eigen::Ref<const Matrix>& values, const BoolMatrix* allowed,
                    const HeatmapStyle& style, ColorRange* range = nullptr);

// Like heatmapImage, but coloured against a given `range` instead of the map's own, so that
// small multiples of many heads share one colour bar. `allowed` may be null.
QImage heatmapImageInRange(const Eigen::Ref<const Matrix>& values, const BoolMatrix* allowed,
                           const HeatmapStyle& style, const ColorRange& range);

// A difference map (a − b) in the diverging colour map, symmetric around 0.
QImage differenceImage(const Eigen::Ref<const Matrix>& difference, ColorRange* range = nullptr);

// Position in [0, 1] of `value` within `range`, as heatmapImage maps it (for colour bars and
// for tests that check which cell is brightest).
double normalizedPosition(const ColorRange& range, double value);

}  // namespace attnscope::render
