#include "panels/dependency_figure.h"

#include <algorithm>

#include <QFontMetricsF>
#include <QPainter>

#include "render/color_bar.h"
#include "render/heat_cells.h"
#include "render/heatmap_image.h"

namespace attnscope::app {

namespace {

constexpr double kCell = 48;      // pixels per cell
constexpr double kMargin = 40;    // around everything
constexpr double kTitle = 90;     // title block height
constexpr double kLabels = 60;    // room for layer / head numbers
constexpr double kBarGap = 30;    // between the cells and the colour bar
constexpr double kBarWidth = 24;  // the colour bar itself
constexpr double kBarLabels = 110;

render::ColorRange accuracyRange() {
    render::ColorRange range;
    range.lo = 0.0;
    range.hi = 1.0;
    range.caption = QStringLiteral("accuracy");
    return range;
}

}  // namespace

QSize dependencyFigureSize(const DependencyFigure& figure) {
    const double w = 2 * kMargin + kLabels + kCell * static_cast<double>(figure.accuracy.cols()) +
                     kBarGap + kBarWidth + kBarLabels;
    const double h =
        2 * kMargin + kTitle + kLabels + kCell * static_cast<double>(figure.accuracy.rows());
    return {std::max(400, static_cast<int>(w)), static_cast<int>(h)};
}

void paintDependencyFigure(QPainter& p, const QSize& size, const DependencyFigure& figure) {
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
    p.drawText(QRectF(kMargin, kMargin + 40, size.width() - 2 * kMargin, 40),
               Qt::AlignLeft | Qt::TextWordWrap, figure.subtitle);

    const auto rows = static_cast<int>(figure.accuracy.rows());
    const auto cols = static_cast<int>(figure.accuracy.cols());
    const QRectF grid(kMargin + kLabels, kMargin + kTitle + kLabels, kCell * cols, kCell * rows);
    const render::ColorRange range = accuracyRange();
    const QImage cells = render::heatmapImageInRange(figure.accuracy, nullptr, {}, range);
    render::paintHeatCells(p, grid, cells, render::CellDrawing::Rectangles);
    for (int c = 0; c < cols; ++c) {
        p.drawText(QRectF(grid.left() + kCell * c, grid.top() - 28, kCell, 24), Qt::AlignCenter,
                   QString::number(c));
    }
    for (int r = 0; r < rows; ++r) {
        p.drawText(QRectF(grid.left() - 40, grid.top() + kCell * r, 34, kCell),
                   Qt::AlignRight | Qt::AlignVCenter, QString::number(r));
    }
    p.drawText(QRectF(grid.left(), grid.top() - 56, grid.width(), 24), Qt::AlignCenter,
               QStringLiteral("head"));
    p.save();
    p.translate(kMargin + 8, grid.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-grid.height() / 2, -12, grid.height(), 24), Qt::AlignCenter,
               QStringLiteral("layer"));
    p.restore();
    if (figure.best) {
        p.setPen(QPen(Qt::white, 3));
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRectF(grid.left() + kCell * figure.best->head,
                          grid.top() + kCell * figure.best->layer, kCell, kCell)
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
