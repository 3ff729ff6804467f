#include "analyses/dependencies/dependency_figure.h"

#include <algorithm>

#include "analyses/corpus/accuracy_range.h"
#include "analyses/corpus/heat_grid_figure.h"

namespace attnscope::app {

namespace {

HeatGridFigure heatGrid(const DependencyFigure& figure) {
    HeatGridFigure grid =
        heatGridFigure(figure.accuracy, figure.title, figure.subtitle, QStringLiteral("head"));
    grid.range = accuracyRange(figure.accuracy, true);  // 0–1: figures compare models
    grid.outlined = figure.best;
    return grid;
}

}  // namespace

QSize dependencyFigureSize(const DependencyFigure& figure) {
    const QSizeF extent = heatGridFigureExtent(heatGrid(figure));
    return {std::max(400, static_cast<int>(extent.width())), static_cast<int>(extent.height())};
}

void paintDependencyFigure(QPainter& p, const QSize& size, const DependencyFigure& figure) {
    paintHeatGridFigure(p, size, heatGrid(figure));
}

}  // namespace attnscope::app
