// Paints the Δ loss heatmap of a head importance run (layers × heads or key/value groups) as a
// figure for export: a title, a subtitle (objective, corpus, clean loss), the cells on a
// diverging scale symmetric around 0 with layer and head numbers, the most important unit
// outlined and a colour bar. QtGui only; pure painting.
#pragma once

#include <QSize>
#include <QString>

#include "analyses/importance/importance_document.h"
#include "attnscope/base/tensor.h"
#include "render/heatmap_image.h"

class QPainter;

namespace attnscope::app {

// [nLayers, nUnits] of Δ loss.
Matrix deltaLossMatrix(const analysis::ImportanceResult& result);

// Diverging, symmetric around 0 (blue: the loss fell, red: it rose), captioned `caption`.
render::ColorRange deltaLossRange(const Matrix& delta, const QString& caption);

struct ImportanceFigure {
    Matrix delta;  // [nLayers, nUnits]
    QString title;
    QString subtitle;
    QString unitAxis;  // "head" or "key/value group"
    int best = -1;     // layer-major index of the most important unit; -1 for none
};

ImportanceFigure importanceFigure(const ImportanceRun& run);

// A page size that gives square cells of a readable size.
QSize importanceFigureSize(const ImportanceFigure& figure);

void paintImportanceFigure(QPainter& painter, const QSize& size, const ImportanceFigure& figure);

}  // namespace attnscope::app
