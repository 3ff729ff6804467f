#include "render/heat_cells.h"

#include <algorithm>
#include <cmath>

#include <QPaintEngine>
#include <QPainter>
#include <QVector>

namespace attnscope::render {

namespace {

// Viewers smooth embedded images when they zoom; enlarging the image by whole cells before
// embedding keeps cell edges sharp at any zoom a reader will use, at little cost in file size
// (flat blocks compress well). Capped so a 512-token map stays a few megapixels.
constexpr int kMaxEmbeddedSide = 2048;

// Qt's PDF writer stores images as JPEG unless told otherwise; attention maps need their
// exact colours and sharp cell edges. (The caller's save() / restore() scope the hint.)
void drawLossless(QPainter& painter, const QRectF& target, const QImage& image) {
    painter.setRenderHint(QPainter::LosslessImageRendering, true);
    painter.drawImage(target, image);
}

void paintImage(QPainter& painter, const QRectF& target, const QImage& cells) {
    const QRectF onDevice = painter.transform().mapRect(target);
    const double scale = onDevice.width() / std::max(1, cells.width());
    painter.save();
    if (scale < 1.0) {
        // Shrinking: average the cells each output pixel covers rather than pick one of them,
        // so a long causal map does not alias into stripes.
        const QSize size(std::max(1, static_cast<int>(std::lround(onDevice.width()))),
                         std::max(1, static_cast<int>(std::lround(onDevice.height()))));
        painter.setRenderHint(QPainter::SmoothPixmapTransform, true);
        drawLossless(painter, target,
                     cells.scaled(size, Qt::IgnoreAspectRatio, Qt::SmoothTransformation));
    } else {
        painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
        const QPaintEngine* engine = painter.paintEngine();
        const bool rasterDevice = engine != nullptr && engine->type() == QPaintEngine::Raster;
        const int factor = std::clamp(static_cast<int>(std::ceil(scale)), 1,
                                      std::max(1, kMaxEmbeddedSide / std::max(1, cells.width())));
        if (rasterDevice || factor == 1) {
            drawLossless(painter, target, cells);
        } else {
            drawLossless(
                painter, target,
                cells.scaled(cells.size() * factor, Qt::IgnoreAspectRatio, Qt::FastTransformation));
        }
    }
    painter.restore();
}

void paintRectangles(QPainter& painter, const QRectF& target, const QImage& cells) {
    const int rows = cells.height();
    const int cols = cells.width();
    const double cw = target.width() / cols;
    const double ch = target.height() / rows;
    // Abutting rectangles show hairline seams in PDF and SVG viewers (each edge is
    // anti-aliased on its own); each cell reaches a little into the next one, drawn later.
    const double overlap = std::min(0.5, 0.1 * std::min(cw, ch));
    painter.save();
    painter.setPen(Qt::NoPen);
    for (int r = 0; r < rows; ++r) {
        const auto* line = reinterpret_cast<const QRgb*>(cells.constScanLine(r));
        for (int c0 = 0; c0 < cols;) {
            int c1 = c0 + 1;
            while (c1 < cols && line[c1] == line[c0]) {
                ++c1;
            }
            const QRectF rect(target.left() + c0 * cw, target.top() + r * ch,
                              (c1 - c0) * cw + (c1 < cols ? overlap : 0.0),
                              ch + (r + 1 < rows ? overlap : 0.0));
            painter.fillRect(rect, QColor(line[c0]));
            c0 = c1;
        }
    }
    painter.restore();
}

// Segments of the lines x + y = k * spacing inside the rectangle [x0, x1] x [y0, y1], in
// coordinates relative to the map's corner so every row shares one lattice.
void addHatchLines(double x0, double y0, double x1, double y1, double spacing,
                   QVector<QLineF>& lines) {
    for (double k = std::ceil((x0 + y0) / spacing); k * spacing <= x1 + y1; k += 1.0) {
        const double c = k * spacing;
        const double xa = std::max(x0, c - y1);
        const double xb = std::min(x1, c - y0);
        if (xb > xa) {
            lines.append(QLineF(xa, c - xa, xb, c - xb));
        }
    }
}

}  // namespace

ColorRange unionRange(const std::vector<ColorRange>& ranges) {
    if (ranges.empty()) {
        return {};
    }
    ColorRange out = ranges.front();
    for (const ColorRange& r : ranges) {
        out.lo = std::min(out.lo, r.lo);
        out.hi = std::max(out.hi, r.hi);
    }
    return out;
}

void paintHeatCells(QPainter& painter, const QRectF& target, const QImage& cells,
                    CellDrawing drawing) {
    if (cells.isNull() || target.isEmpty()) {
        return;
    }
    if (drawing == CellDrawing::Rectangles) {
        paintRectangles(painter, target, cells);
    } else {
        paintImage(painter, target, cells);
    }
}

void paintMaskHatch(QPainter& painter, const QRectF& target, const BoolMatrix& allowed,
                    const HatchStyle& style) {
    const auto rows = static_cast<int>(allowed.rows());
    const auto cols = static_cast<int>(allowed.cols());
    if (rows == 0 || cols == 0 || !(style.spacing > 0)) {
        return;
    }
    const double cw = target.width() / cols;
    const double ch = target.height() / rows;
    QVector<QLineF> lines;
    for (int r = 0; r < rows; ++r) {
        for (int c0 = 0; c0 < cols;) {
            if (allowed(r, c0) != 0) {
                ++c0;
                continue;
            }
            int c1 = c0 + 1;
            while (c1 < cols && allowed(r, c1) == 0) {
                ++c1;
            }
            addHatchLines(c0 * cw, r * ch, c1 * cw, (r + 1) * ch, style.spacing, lines);
            c0 = c1;
        }
    }
    painter.save();
    painter.translate(target.topLeft());
    QPen pen(style.color, style.lineWidth);
    pen.setCapStyle(Qt::FlatCap);
    painter.setPen(pen);
    painter.drawLines(lines);
    painter.restore();
}

void paintMaskSwatch(QPainter& painter, const QRectF& swatch, const HatchStyle& style) {
    painter.save();
    painter.fillRect(swatch, maskedCellColor());
    QPen pen(style.color, style.lineWidth);
    pen.setCapStyle(Qt::FlatCap);
    painter.setPen(pen);
    QVector<QLineF> lines;
    addHatchLines(0, 0, swatch.width(), swatch.height(), style.spacing, lines);
    painter.translate(swatch.topLeft());
    painter.drawLines(lines);
    painter.setPen(QPen(style.color, style.lineWidth));
    painter.drawRect(QRectF(QPointF(0, 0), swatch.size()));
    painter.restore();
}

}  // namespace attnscope::render
