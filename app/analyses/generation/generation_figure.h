// What the Generation tab draws of a step, on screen and in its exported figure: the chosen
// head's attention row over the keys (prompt + tokens generated so far) as a bar strip under the
// token labels, and every head's weight on one key (the focused key) as a layers × heads map.
// Every number is read from the core's generation (forward::generate's rows); nothing is
// recomputed. QtGui only; GUI thread or any painting one.
#pragma once

#include <QColor>
#include <QRectF>
#include <QString>

#include "analyses/corpus/heat_grid_figure.h"
#include "analyses/generation/generation_document.h"
#include "attnscope/base/head_id.h"
#include "attnscope/base/tensor.h"
#include "render/heatmap_image.h"

class QPainter;

namespace attnscope::app {

using GenerationRun = GenerationDocument::Run;

// The step's row of `head` (its keys' weights), a pointer into the run.
const float* stepRow(const GenerationRun& run, int step, HeadId head);

// The key `head` gives the most weight at `step` (ties to the lower position).
int argmaxKey(const GenerationRun& run, int step, HeadId head);

// [nLayers, nHeads]: each head's weight on `key` at `step`.
Matrix keyWeights(const GenerationRun& run, int step, int key);

// 0 to 1, the attention weight's range.
render::ColorRange weightRange();

// "Step 3 of 20: after “fox” the model chose “·jumps” (p = 0.412)". `rich`: bold pieces, escaped.
QString stepHeadline(const GenerationRun& run, int step, bool rich);

// How the bar strip is drawn: the window's colours on screen, black on white in a figure.
struct RowStripStyle {
    QColor text = Qt::black;
    QColor grid = QColor(200, 200, 200);
    QColor prompt = QColor(70, 120, 190);     // the prompt's keys
    QColor generated = QColor(230, 130, 40);  // the keys generated before this step
    QColor focus = Qt::black;                 // outline of the focused key
};

// The bar strip in `area`: a bar per key (height: weight, scaled to the row's largest), the
// largest and the focused key's weights written on them, the token labels under the bars
// (upright when they fit, else turned). Returns the bars' rectangles' left edges' step (pixels
// per key) so that a widget can map a mouse position to a key.
double paintRowStrip(QPainter& p, const QRectF& area, const GenerationRun& run, int step,
                     HeadId head, int focusKey, const RowStripStyle& style);

// The left edge and width of the strip's bars inside `area`, as paintRowStrip lays them out.
QRectF rowStripBars(const QRectF& area, const GenerationRun& run, int step);

// The exported figure: the headline, the head's bar strip and every head's weight on the focused
// key, on one page of `size`; `pageSize` says the size it needs.
QSize generationFigureSize(const GenerationRun& run, int step);
void paintGenerationFigure(QPainter& p, const QSize& size, const GenerationRun& run, int step,
                           HeadId head, int focusKey);

}  // namespace attnscope::app
