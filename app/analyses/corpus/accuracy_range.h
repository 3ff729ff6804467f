// The colours of a layers × heads accuracy heatmap (the Dependencies and Coreference docks):
// the finite accuracies' span, so that 15 % and 40 % look different, or 0–1 when asked for (to
// compare models on one scale) or when every head scores the same. The caption says which.
#pragma once

#include <QStringList>

#include "attnscope/base/tensor.h"
#include "render/heatmap_image.h"

namespace attnscope::app {

render::ColorRange accuracyRange(const Matrix& accuracy, bool fixed);

// "L0", "L1", … and "H0", "H1", …: the heatmap's row and column labels.
QStringList layerLabels(int layers);
QStringList headLabels(int heads);

}  // namespace attnscope::app
