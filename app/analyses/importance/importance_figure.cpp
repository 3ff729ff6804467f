#include "analyses/importance/importance_figure.h"

#include <algorithm>
#include <cmath>

#include <QObject>

#include "analyses/corpus/heat_grid_figure.h"

namespace attnscope::app {

namespace {

// Big models get smaller cells so the figure stays a sensible size (32 × 32 heads: 1.6k px).
double cellSize(const Matrix& delta) {
    const auto most = static_cast<double>(std::max<Eigen::Index>({delta.rows(), delta.cols(), 1}));
    return std::clamp(1200.0 / most, 24.0, 48.0);
}

}  // namespace

Matrix deltaLossMatrix(const analysis::ImportanceResult& result) {
    Matrix m(result.nLayers, result.nUnits);
    for (int l = 0; l < result.nLayers; ++l) {
        for (int u = 0; u < result.nUnits; ++u) {
            m(l, u) = static_cast<float>(result.deltaOf(l, u));
        }
    }
    return m;
}

render::ColorRange deltaLossRange(const Matrix& delta, const QString& caption) {
    double most = 0;
    for (Eigen::Index i = 0; i < delta.size(); ++i) {
        const float v = delta.data()[i];
        if (std::isfinite(v)) {
            most = std::max(most, static_cast<double>(std::abs(v)));
        }
    }
    most = std::max(most, 1e-6);  // every head changed nothing: still a valid range
    return {-most, most, render::Scaling::Linear, render::Colormap::Diverging, caption};
}

ImportanceFigure importanceFigure(const ImportanceRun& run) {
    const analysis::ImportanceResult& r = run.result;
    ImportanceFigure figure;
    figure.delta = deltaLossMatrix(r);
    figure.title = QObject::tr("Δ loss when the head is ablated alone");
    figure.subtitle = importanceSummary(run) + QObject::tr(" · layers and heads 0-based");
    figure.unitAxis = r.kvGroups ? QObject::tr("key/value group") : QObject::tr("head");
    figure.best = r.order.empty() ? -1 : r.order.back();
    return figure;
}

namespace {

HeatGridFigure heatGrid(const ImportanceFigure& figure) {
    HeatGridFigure grid =
        heatGridFigure(figure.delta, figure.title, figure.subtitle, figure.unitAxis);
    grid.style.colormap = render::Colormap::Diverging;
    grid.range = deltaLossRange(figure.delta, QObject::tr("Δ loss"));
    grid.cell = cellSize(figure.delta);
    grid.titleHeight = 96;  // the subtitle (objective, corpus, losses) may wrap to two lines
    grid.subtitleHeight = 52;
    grid.barLabelWidth = 130;  // signed tick labels
    const auto cols = static_cast<int>(figure.delta.cols());
    if (figure.best >= 0 && cols > 0) {
        grid.outlined = HeadId{figure.best / cols, figure.best % cols};
    }
    grid.outlineColor = Qt::black;  // white would vanish in the diverging map's pale middle
    return grid;
}

}  // namespace

QSize importanceFigureSize(const ImportanceFigure& figure) {
    const QSizeF extent = heatGridFigureExtent(heatGrid(figure));
    return {std::max(900, static_cast<int>(extent.width())),
            std::max(400, static_cast<int>(extent.height()))};
}

void paintImportanceFigure(QPainter& p, const QSize& size, const ImportanceFigure& figure) {
    paintHeatGridFigure(p, size, heatGrid(figure));
}

}  // namespace attnscope::app
