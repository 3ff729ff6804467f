// Paints the accuracy heatmap of one relation (layers × heads) as a figure for export: a
// title, the cells with layer and head numbers, the best head outlined and a colour bar.
// QtGui only; pure painting.
#pragma once

#include <optional>

#include <QSize>
#include <QString>

#include "attnscope/base/head_id.h"
#include "attnscope/base/tensor.h"

class QPainter;

namespace attnscope::app {

struct DependencyFigure {
    Matrix accuracy;  // [nLayers, nHeads], 0..1, NaN for no data
    QString title;
    QString subtitle;
    std::optional<HeadId> best;
};

// A page size that gives square cells of a readable size.
QSize dependencyFigureSize(const DependencyFigure& figure);

void paintDependencyFigure(QPainter& painter, const QSize& size, const DependencyFigure& figure);

}  // namespace attnscope::app
