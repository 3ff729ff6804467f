#include "panels/importance_figure.h"

#include <algorithm>
#include <cmath>

#include <QObject>
#include <QPainter>

#include "render/color_bar.h"
#include "render/heat_cells.h"

namespace attnscope::app {

namespace {

constexpr double kMargin = 40;    // around everything
constexpr double kTitle = 96;     // title block height
constexpr double kLabels = 60;    // room for layer / head numbers
constexpr double kBarGap = 30;    // between the cells and the colour bar
constexpr double kBarWidth = 24;  // the colour bar itself
constexpr double kBarLabels = 130;

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

QSize importanceFigureSize(const ImportanceFigure& figure) {
    const double cell = cellSize(figure.delta);
    const double w = 2 * kMargin + kLabels + cell * static_cast<double>(figure.delta.cols()) +
                     kBarGap + kBarWidth + kBarLabels;
    const double h =
        2 * kMargin + kTitle + kLabels + cell * static_cast<double>(figure.delta.rows());
    return {std::max(900, static_cast<int>(w)), std::max(400, static_cast<int>(h))};
}

void paintImportanceFigure(QPainter& p, const QSize& size, const ImportanceFigure& figure) {
    p.fillRect(QRectF(QPointF(0, 0), QSizeF(size)), Qt::white);
    p.setPen(Qt::black);
    QFont titleFont = p.font();
    titleFont.setPixelSize(26);
    titleFont.setBold(true);
    QFont smallFont = p.font();
    smallFont.setPixelSize(17);
    p.setFont(titleFont);
    p.drawText(QRectF(kMargin, kMargin, size.width() - 2 * kMargin, 36), Qt::AlignLeft,
               figure.title);
    p.setFont(smallFont);
    p.drawText(QRectF(kMargin, kMargin + 40, size.width() - 2 * kMargin, 52),
               Qt::AlignLeft | Qt::TextWordWrap, figure.subtitle);

    const double cell = cellSize(figure.delta);
    const auto rows = static_cast<int>(figure.delta.rows());
    const auto cols = static_cast<int>(figure.delta.cols());
    const QRectF grid(kMargin + kLabels, kMargin + kTitle + kLabels, cell * cols, cell * rows);
    const render::ColorRange range = deltaLossRange(figure.delta, QObject::tr("Δ loss"));
    render::HeatmapStyle style;
    style.colormap = render::Colormap::Diverging;
    const QImage cells = render::heatmapImageInRange(figure.delta, nullptr, style, range);
    render::paintHeatCells(p, grid, cells, render::CellDrawing::Rectangles);
    // Every label when they fit, else every second, fourth, …
    const int step = std::max(1, static_cast<int>(std::ceil(28.0 / cell)));
    for (int c = 0; c < cols; c += step) {
        p.drawText(QRectF(grid.left() + cell * c - 10, grid.top() - 28, cell + 20, 24),
                   Qt::AlignCenter, QString::number(c));
    }
    for (int r = 0; r < rows; r += step) {
        p.drawText(QRectF(grid.left() - 40, grid.top() + cell * r, 34, cell),
                   Qt::AlignRight | Qt::AlignVCenter, QString::number(r));
    }
    p.drawText(QRectF(grid.left(), grid.top() - 56, grid.width(), 24), Qt::AlignCenter,
               figure.unitAxis);
    p.save();
    p.translate(kMargin + 8, grid.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-grid.height() / 2, -12, grid.height(), 24), Qt::AlignCenter,
               QObject::tr("layer"));
    p.restore();
    if (figure.best >= 0 && cols > 0) {
        p.setPen(QPen(Qt::black, 3));
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRectF(grid.left() + cell * (figure.best % cols),
                          grid.top() + cell * (figure.best / cols), cell, cell)
                       .adjusted(1.5, 1.5, -1.5, -1.5));
        p.setPen(Qt::black);
    }
    render::ColorBarStyle bar;
    bar.tickFont = smallFont;
    bar.captionFont = smallFont;
    render::paintColorBar(p, QRectF(grid.right() + kBarGap, grid.top(), kBarWidth, grid.height()),
                          range, bar);
}

}  // namespace attnscope::app
