// The colour of a layer in charts that colour heads by layer (the survey's head map, the
// saturation scatter): viridis sampled per layer, leaving out the end that vanishes into the
// background — the pale yellow top on white, the near-black bottom on dark grey. Header-only.
#pragma once

#include <QColor>

#include "render/colormap.h"

namespace attnscope::app {

inline QColor layerColor(int layer, int nLayers, bool dark) {
    const double lo = dark ? 0.15 : 0.0;
    const double hi = dark ? 1.0 : 0.88;
    const double t = nLayers > 1 ? static_cast<double>(layer) / (nLayers - 1) : 0.5;
    return QColor::fromRgb(render::colorAt(render::Colormap::Viridis, lo + t * (hi - lo)));
}

}  // namespace attnscope::app
