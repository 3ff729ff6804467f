// The cells of the alignment view: target words down the side, source words along the top, one
// coloured cell per pair, each row's strongest source word outlined, a colour bar on the right.
// One layout and one painting function serve the widget and the exported figure, so a PNG or
// SVG shows what the screen shows.
//
// Cells shrink to fit the space they are given, down to kMinCell pixels; below that the widget
// asks for more room and its scroll area scrolls. Column labels stand upright while every one
// fits its cell, else they are rotated to read upwards; long labels are elided. Numbers are
// written in the cells when the cells are large enough to hold them. QtGui/QtWidgets only;
// knows nothing about models. GUI thread only.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include <QColor>
#include <QFont>
#include <QRectF>
#include <QStringList>
#include <QWidget>

#include "attnscope/base/tensor.h"
#include "render/heatmap_image.h"

namespace attnscope::app {

struct AlignmentCells {
    QStringList targets;  // rows
    QStringList sources;  // columns
    Matrix weights;       // [targets, sources]
    render::HeatmapStyle style;
    render::ColorRange range;  // what the colours span (colour bar)
    std::vector<int> best;     // per row: the column with the largest weight, -1 for none
};

// Fills range and best from weights and style.
void finishAlignmentCells(AlignmentCells& cells);

struct AlignmentLayout {
    QFont font;       // labels (shrunk with small cells)
    double cell = 0;  // edge of a cell
    QRectF cells;     // all cells
    double rowLabelWidth = 0;
    double columnLabelHeight = 0;
    bool rotatedColumns = false;
    QRectF colorBar;       // the gradient itself; its ticks and caption go right of it
    bool numbers = false;  // weights written in the cells
    QSizeF needed;         // the whole picture at this cell size, from (0, 0)
};

inline constexpr double kMinAlignmentCell = 16;
inline constexpr double kMaxAlignmentCell = 80;

// Lays the cells out in `space` (origin at 0, 0) with `font` as the largest label font: the
// largest cell up to kMaxAlignmentCell that fits, but never below kMinAlignmentCell (then
// `needed` is larger than `space`). `device` measures text (fonts differ between screen and
// file); may be null for the screen's metrics.
AlignmentLayout layoutAlignment(const AlignmentCells& cells, QSizeF space, const QFont& font,
                                const QPaintDevice* device);

struct AlignmentPaintStyle {
    QColor text = Qt::black;
    QColor background = Qt::white;
    std::optional<std::pair<int, int>> hover;  // (row, col) whose labels are shown in bold
};

void paintAlignment(QPainter& painter, const AlignmentCells& cells, const AlignmentLayout& layout,
                    const AlignmentPaintStyle& style);

// The cell under `pos`, if any.
std::optional<std::pair<int, int>> alignmentCellAt(const AlignmentLayout& layout, int rows,
                                                   int cols, QPointF pos);

QRectF alignmentCellRect(const AlignmentLayout& layout, int row, int col);

class AlignmentGrid : public QWidget {
    Q_OBJECT

public:
    explicit AlignmentGrid(QWidget* parent = nullptr);

    void setCells(AlignmentCells cells);
    // No cells: `text` in their place.
    void clear(const QString& text);

    const AlignmentCells& cells() const { return m_cells; }

    const QString& placeholder() const { return m_placeholder; }

    // For tests and overlays: the layout at the widget's current size.
    AlignmentLayout currentLayout() const;
    QRectF cellRect(int row, int col) const;

    // "target → source: 0.62", or empty outside the cells.
    QString cellToolTip(int row, int col) const;

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

signals:
    void cellClicked(int row, int col);

protected:
    bool event(QEvent* event) override;
    void changeEvent(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    bool hasCells() const { return m_cells.weights.size() > 0; }

    AlignmentCells m_cells;
    QString m_placeholder;
    // Layout measures every label at each cell size tried; mouse moves reuse it.
    mutable std::optional<AlignmentLayout> m_layout;
    mutable QSize m_layoutSize;
    std::optional<std::pair<int, int>> m_hover;
};

}  // namespace attnscope::app
