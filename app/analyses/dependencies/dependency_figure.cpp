#include "analyses/dependencies/dependency_figure.h"

#include <algorithm>

#include "analyses/corpus/heat_grid_figure.h"

namespace attnscope::app {

namespace {

HeatGridFigure heatGrid(const DependencyFigure& figure) {
    HeatGridFigure grid;
    grid.values = figure.accuracy;
    grid.title = figure.title;
    grid.subtitle = figure.subtitle;
    grid.columnAxis = QStringLiteral("head");
    grid.range.lo = 0.0;
    grid.range.hi = 1.0;
    grid.range.caption = QStringLiteral("accuracy");
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
