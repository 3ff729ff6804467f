#include "analyses/corpus/heat_grid_figure.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <QObject>
#include <QPainter>

#include "render/color_bar.h"
#include "render/figure_file.h"
#include "render/heat_cells.h"

namespace attnscope::app {

namespace {

constexpr double kMargin = 40;    // around everything
constexpr double kLabels = 60;    // room for layer / column numbers
constexpr double kBarGap = 30;    // between the cells and the colour bar
constexpr double kBarWidth = 24;  // the colour bar itself

}  // namespace

HeatGridFigure heatGridFigure(Matrix values, QString title, QString subtitle, QString columnAxis) {
    HeatGridFigure figure;
    figure.values = std::move(values);
    figure.title = std::move(title);
    figure.subtitle = std::move(subtitle);
    figure.columnAxis = std::move(columnAxis);
    return figure;
}

QSizeF heatGridFigureExtent(const HeatGridFigure& figure) {
    const double w = 2 * kMargin + kLabels +
                     figure.cell * static_cast<double>(figure.values.cols()) + kBarGap + kBarWidth +
                     figure.barLabelWidth;
    const double h = 2 * kMargin + figure.titleHeight + kLabels +
                     figure.cell * static_cast<double>(figure.values.rows());
    return {w, h};
}

void paintHeatGridFigure(QPainter& p, const QSize& size, const HeatGridFigure& figure) {
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
    p.drawText(QRectF(kMargin, kMargin + 40, size.width() - 2 * kMargin, figure.subtitleHeight),
               Qt::AlignLeft | Qt::TextWordWrap, figure.subtitle);

    const double cell = figure.cell;
    const auto rows = static_cast<int>(figure.values.rows());
    const auto cols = static_cast<int>(figure.values.cols());
    const QRectF grid(kMargin + kLabels, kMargin + figure.titleHeight + kLabels, cell * cols,
                      cell * rows);
    const QImage cells =
        render::heatmapImageInRange(figure.values, nullptr, figure.style, figure.range);
    render::paintHeatCells(p, grid, cells, render::CellDrawing::Rectangles);
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
               figure.columnAxis);
    p.save();
    p.translate(kMargin + 8, grid.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-grid.height() / 2, -12, grid.height(), 24), Qt::AlignCenter,
               QObject::tr("layer"));
    p.restore();
    if (figure.outlined) {
        p.setPen(QPen(figure.outlineColor, 3));
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRectF(grid.left() + cell * figure.outlined->head,
                          grid.top() + cell * figure.outlined->layer, cell, cell)
                       .adjusted(1.5, 1.5, -1.5, -1.5));
        p.setPen(Qt::black);
    }
    render::ColorBarStyle bar;
    bar.tickFont = smallFont;
    bar.captionFont = smallFont;
    render::paintColorBar(p, QRectF(grid.right() + kBarGap, grid.top(), kBarWidth, grid.height()),
                          figure.range, bar);
}

void writeHeatGridFigure(const QString& path, const HeatGridFigure& figure) {
    const QSizeF extent = heatGridFigureExtent(figure);
    render::FigurePage page;
    page.pixelSize = {std::max(900, static_cast<int>(extent.width())),
                      std::max(400, static_cast<int>(extent.height()))};
    page.title = figure.title;
    render::writeFigureFile(path, page, [&figure, &page](QPainter& p) {
        paintHeatGridFigure(p, page.pixelSize, figure);
    });
}

}  // namespace attnscope::app
