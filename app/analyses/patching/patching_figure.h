// What the Activation patching tab draws of a sweep, on screen and in its exported figure: the
// normalised metric as a layers × heads matrix (head sweeps; head × position at one chosen
// position) or layers × positions (residual stream, attention output, MLP output) in a diverging
// colour map centred on 0 (red: the patch moves the metric towards the clean run, blue: away),
// and the endpoints said in words. QtGui only; GUI thread or any painting one.
#pragma once

#include <QString>
#include <QStringList>

#include "analyses/corpus/heat_grid_figure.h"
#include "analyses/patching/patching_document.h"
#include "attnscope/base/tensor.h"
#include "render/heatmap_image.h"

namespace attnscope::app {

// Whether the sweep's units are heads (Head, HeadPosition) rather than positions.
bool sweepsHeads(analysis::PatchSweep sweep);

// "Each head (every position)", "Residual stream", … : what a sweep patches, for titles.
QString sweepTitle(analysis::PatchSweep sweep);

// [nLayers, nUnits] of the normalised metric; a head-position sweep at `position`.
Matrix patchingMatrix(const analysis::PatchingGrid& grid, int position = 0);

// Symmetric about 0, out to the largest finite |value| and no less than 1 (a full restore).
render::ColorRange patchingRange(const Matrix& values);

// The heatmap's column labels: "H0", … for heads, "3 ·fox" (position and clean token) else.
QStringList patchingColumnLabels(const PatchingDocument::Sweep& sweep);

// "4 ·fox": a position and its clean token.
QString positionLabel(const PatchingDocument::Endpoints& endpoints, int position);

// "Metric: logit “·Mary” − logit “·John” at position 5 (“·to”): clean 3.2100, corrupted -2.1000".
// `rich` adds bold
// and escapes the pieces for a QLabel; it says so when the two LD are equal (metric undefined).
QString patchingHeadline(const PatchingDocument::Endpoints& endpoints, bool rich);

// The exported figure: the shown matrix under the sweep's title and the headline.
HeatGridFigure patchingFigure(const PatchingDocument::Sweep& sweep, int position);

}  // namespace attnscope::app
