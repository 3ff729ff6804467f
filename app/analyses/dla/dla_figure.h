// What the Logit attribution tab draws of a run, on screen and in its exported figure: every
// head's term as a layers × heads matrix in a diverging colour map centred on 0 (red writes the
// logit up, blue down), and the run said in words. QtGui only; GUI thread or any painting one.
#pragma once

#include <QString>

#include "analyses/corpus/heat_grid_figure.h"
#include "analyses/dla/dla_document.h"
#include "attnscope/base/tensor.h"
#include "render/heatmap_image.h"

namespace attnscope::app {

// [nLayers, nHeads]: each head's term.
Matrix dlaHeadMatrix(const DlaDocument::Run& run);

// Symmetric about 0, out to the largest |head term|.
render::ColorRange dlaRange(const Matrix& heads);

// "Next token after “&” (position 5): logit of “·p” (top prediction) minus “,” = 9.1829". `rich`
// adds bold and escapes the pieces for a QLabel.
QString dlaHeadline(const DlaDocument::Run& run, bool rich);

// "13 terms add up to 9.18287; the logit is 9.18287".
QString dlaSumLine(const DlaDocument::Run& run);

// The exported figure: the heads' map under the headline, the largest |head| outlined.
HeatGridFigure dlaFigure(const DlaDocument::Run& run);

}  // namespace attnscope::app
