// Perceptually uniform colour maps for attention heatmaps: viridis and magma (sequential, for
// probabilities) and a cool-warm diverging map (for differences). QtGui only.
#pragma once

#include <array>

#include <QColor>
#include <QString>
#include <QStringList>

namespace attnscope::render {

enum class Colormap { Viridis, Magma, Diverging };

// The colour at t in [0, 1] (clamped). 256-entry table built once per map.
QRgb colorAt(Colormap map, double t);

QString colormapName(Colormap map);
// "viridis" / "magma" / "diverging"; nullopt-like: returns false when the name is unknown.
bool colormapFromName(const QString& name, Colormap* out);
QStringList sequentialColormapNames();

}  // namespace attnscope::render
