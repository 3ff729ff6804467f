#include "analyses/alignment/alignment_grid.h"

#include <algorithm>
#include <cmath>

#include <QEvent>
#include <QFontMetricsF>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include "render/color_bar.h"
#include "render/heat_cells.h"
#include "render/text_extent.h"

namespace attnscope::app {

namespace {

constexpr double kMargin = 8;
constexpr double kLabelGap = 6;
constexpr double kBarGap = 18;
constexpr double kBarWidth = 14;
constexpr double kMinBarHeight = 110;
constexpr double kMinLabelPixels = 8;
// Labels longer than this are elided: a 40-character token must not push the cells away.
constexpr double kMaxRowLabel = 190;
constexpr double kMaxColumnLabel = 150;
// Weights are written in cells at least this large.
constexpr double kNumberCell = 34;

QFont labelFont(const QFont& base, double cell) {
    QFont f = base;
    const double basePixels = QFontInfo(base).pixelSize();
    f.setPixelSize(static_cast<int>(std::clamp(cell * 0.62, kMinLabelPixels, basePixels)));
    return f;
}

render::ColorBarStyle barStyle(const QFont& font) {
    render::ColorBarStyle s;
    s.tickFont = font;
    s.captionFont = font;
    return s;
}

// The picture at cell size `cell`, placed from the top-left margin.
AlignmentLayout layoutAt(const AlignmentCells& cells, double cell, const QFont& base,
                         const QPaintDevice* device) {
    AlignmentLayout l;
    l.cell = cell;
    l.font = labelFont(base, cell);
    const QFontMetricsF fm(l.font, device);
    const auto rows = static_cast<double>(cells.targets.size());
    const auto cols = static_cast<double>(cells.sources.size());
    l.rowLabelWidth = std::min(kMaxRowLabel, render::widestAdvance(fm, cells.targets)) + kLabelGap;
    const double widestColumn = render::widestAdvance(fm, cells.sources);
    l.rotatedColumns = widestColumn + 4 > cell;
    l.columnLabelHeight =
        (l.rotatedColumns ? std::min(kMaxColumnLabel, widestColumn) : fm.height()) + kLabelGap;
    l.cells =
        QRectF(kMargin + l.rowLabelWidth, kMargin + l.columnLabelHeight, cols * cell, rows * cell);
    l.numbers = cell >= kNumberCell && fm.horizontalAdvance(QStringLiteral("0.00")) + 4 < cell;
    const double barHeight = std::max(l.cells.height(), kMinBarHeight);
    l.colorBar = QRectF(l.cells.right() + kBarGap, l.cells.top(), kBarWidth, barHeight);
    const double barLabels = render::colorBarLabelWidth(cells.range, barStyle(l.font), device);
    l.needed = QSizeF(l.colorBar.right() + barLabels + kMargin, l.colorBar.bottom() + kMargin);
    return l;
}

QColor cellTextColor(QRgb background) {
    return qGray(background) > 140 ? Qt::black : Qt::white;
}

void paintNumbers(QPainter& p, const AlignmentCells& cells, const AlignmentLayout& l) {
    QFont f = l.font;
    f.setPixelSize(std::max(static_cast<int>(kMinLabelPixels), l.font.pixelSize() - 1));
    p.setFont(f);
    for (int r = 0; r < cells.weights.rows(); ++r) {
        for (int c = 0; c < cells.weights.cols(); ++c) {
            const double w = cells.weights(r, c);
            const QRgb bg =
                render::colorAt(cells.style.colormap, render::normalizedPosition(cells.range, w));
            p.setPen(cellTextColor(bg));
            p.drawText(alignmentCellRect(l, r, c), Qt::AlignCenter, QString::number(w, 'f', 2));
        }
    }
}

// Each row's strongest source word: a dark frame with a light one inside, visible on every
// colour of every map.
void paintBest(QPainter& p, const AlignmentCells& cells, const AlignmentLayout& l) {
    p.setBrush(Qt::NoBrush);
    for (int r = 0; r < static_cast<int>(cells.best.size()); ++r) {
        if (cells.best[static_cast<std::size_t>(r)] < 0) {
            continue;
        }
        const QRectF rect = alignmentCellRect(l, r, cells.best[static_cast<std::size_t>(r)]);
        p.setPen(QPen(Qt::black, 3));
        p.drawRect(rect.adjusted(1.5, 1.5, -1.5, -1.5));
        p.setPen(QPen(Qt::white, 1.5));
        p.drawRect(rect.adjusted(3, 3, -3, -3));
    }
}

// Which way the words run, in the corner the two label strips leave free.
void paintCornerHint(QPainter& p, const AlignmentLayout& l, const AlignmentPaintStyle& style) {
    QFont f = l.font;
    f.setPixelSize(std::max(static_cast<int>(kMinLabelPixels), l.font.pixelSize() - 2));
    p.setFont(f);
    QColor grey = style.text;
    grey.setAlphaF(0.55f);
    p.setPen(grey);
    const QRectF corner(l.cells.left() - l.rowLabelWidth, l.cells.top() - l.columnLabelHeight,
                        l.rowLabelWidth - kLabelGap, l.columnLabelHeight - kLabelGap);
    const QFontMetricsF fm(f);
    const QString source = QObject::tr("source →");
    const QString target = QObject::tr("target ↓");
    if (fm.horizontalAdvance(source) <= corner.width() && 2 * fm.height() <= corner.height()) {
        p.drawText(corner, Qt::AlignRight | Qt::AlignBottom, source + QLatin1Char('\n') + target);
    }
}

void paintLabels(QPainter& p, const AlignmentCells& cells, const AlignmentLayout& l,
                 const AlignmentPaintStyle& style) {
    paintCornerHint(p, l, style);
    const auto fontFor = [&](bool bold) {
        QFont f = l.font;
        f.setBold(bold);
        return f;
    };
    p.setPen(style.text);
    for (int r = 0; r < cells.targets.size(); ++r) {
        const bool bold = style.hover && style.hover->first == r;
        p.setFont(fontFor(bold));
        const QRectF box(l.cells.left() - l.rowLabelWidth, l.cells.top() + r * l.cell,
                         l.rowLabelWidth - kLabelGap, l.cell);
        const QString text =
            QFontMetricsF(p.font()).elidedText(cells.targets[r], Qt::ElideRight, box.width());
        p.drawText(box, Qt::AlignRight | Qt::AlignVCenter, text);
    }
    const double labelLength = l.columnLabelHeight - kLabelGap;
    for (int c = 0; c < cells.sources.size(); ++c) {
        const bool bold = style.hover && style.hover->second == c;
        p.setFont(fontFor(bold));
        const double x = l.cells.left() + c * l.cell;
        if (!l.rotatedColumns) {
            p.drawText(QRectF(x, l.cells.top() - l.columnLabelHeight, l.cell, labelLength),
                       Qt::AlignHCenter | Qt::AlignBottom, cells.sources[c]);
            continue;
        }
        const QString text =
            QFontMetricsF(p.font()).elidedText(cells.sources[c], Qt::ElideRight, labelLength);
        p.save();
        p.translate(x + l.cell / 2, l.cells.top() - kLabelGap);
        p.rotate(-90);
        p.drawText(QRectF(0, -l.cell / 2, labelLength, l.cell), Qt::AlignLeft | Qt::AlignVCenter,
                   text);
        p.restore();
    }
}

}  // namespace

void finishAlignmentCells(AlignmentCells& cells) {
    cells.range = render::colorRangeOf(cells.weights, nullptr, cells.style);
    cells.best.assign(static_cast<std::size_t>(cells.weights.rows()), -1);
    for (Eigen::Index r = 0; r < cells.weights.rows(); ++r) {
        float top = 0;
        for (Eigen::Index c = 0; c < cells.weights.cols(); ++c) {
            // Strictly larger: a row of zeros (or NaN) has no strongest word.
            if (cells.weights(r, c) > top) {
                top = cells.weights(r, c);
                cells.best[static_cast<std::size_t>(r)] = static_cast<int>(c);
            }
        }
    }
}

AlignmentLayout layoutAlignment(const AlignmentCells& cells, QSizeF space, const QFont& font,
                                const QPaintDevice* device) {
    // Label widths depend on the font, which shrinks with the cell: try sizes from the largest.
    for (double cell = kMaxAlignmentCell; cell > kMinAlignmentCell; cell -= 1) {
        AlignmentLayout l = layoutAt(cells, cell, font, device);
        if (l.needed.width() <= space.width() && l.needed.height() <= space.height()) {
            return l;
        }
    }
    return layoutAt(cells, kMinAlignmentCell, font, device);
}

QRectF alignmentCellRect(const AlignmentLayout& layout, int row, int col) {
    return {layout.cells.left() + col * layout.cell, layout.cells.top() + row * layout.cell,
            layout.cell, layout.cell};
}

std::optional<std::pair<int, int>> alignmentCellAt(const AlignmentLayout& layout, int rows,
                                                   int cols, QPointF pos) {
    if (!layout.cells.contains(pos) || layout.cell <= 0) {
        return std::nullopt;
    }
    const int r = static_cast<int>((pos.y() - layout.cells.top()) / layout.cell);
    const int c = static_cast<int>((pos.x() - layout.cells.left()) / layout.cell);
    if (r < 0 || r >= rows || c < 0 || c >= cols) {
        return std::nullopt;
    }
    return std::pair{r, c};
}

void paintAlignment(QPainter& p, const AlignmentCells& cells, const AlignmentLayout& l,
                    const AlignmentPaintStyle& style) {
    const QImage image =
        render::heatmapImageInRange(cells.weights, nullptr, cells.style, cells.range);
    render::paintHeatCells(p, l.cells, image, render::CellDrawing::Rectangles);
    // Thin gaps between cells keep neighbouring words apart when their weights are alike.
    p.setPen(QPen(style.background, 1));
    for (int r = 1; r < cells.weights.rows(); ++r) {
        const double y = l.cells.top() + r * l.cell;
        p.drawLine(QPointF(l.cells.left(), y), QPointF(l.cells.right(), y));
    }
    for (int c = 1; c < cells.weights.cols(); ++c) {
        const double x = l.cells.left() + c * l.cell;
        p.drawLine(QPointF(x, l.cells.top()), QPointF(x, l.cells.bottom()));
    }
    if (l.numbers) {
        paintNumbers(p, cells, l);
    }
    paintBest(p, cells, l);
    paintLabels(p, cells, l, style);
    p.setPen(style.text);
    render::paintColorBar(p, l.colorBar, cells.range, barStyle(l.font));
}

AlignmentGrid::AlignmentGrid(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void AlignmentGrid::setCells(AlignmentCells cells) {
    m_cells = std::move(cells);
    m_placeholder.clear();
    m_hover.reset();
    m_layout.reset();
    updateGeometry();
    update();
}

void AlignmentGrid::clear(const QString& text) {
    m_cells = AlignmentCells{};
    m_placeholder = text;
    m_hover.reset();
    m_layout.reset();
    updateGeometry();
    update();
}

AlignmentLayout AlignmentGrid::currentLayout() const {
    if (m_layout && m_layoutSize == size()) {
        return *m_layout;
    }
    AlignmentLayout l = layoutAlignment(m_cells, QSizeF(size()), font(), this);
    // Centred across a wide window rather than huddled at its left edge.
    const double dx = std::floor(std::max(0.0, (width() - l.needed.width()) / 2));
    l.cells.translate(dx, 0);
    l.colorBar.translate(dx, 0);
    m_layout = l;
    m_layoutSize = size();
    return l;
}

void AlignmentGrid::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange) {
        m_layout.reset();
        updateGeometry();
    }
    QWidget::changeEvent(event);
}

QRectF AlignmentGrid::cellRect(int row, int col) const {
    return alignmentCellRect(currentLayout(), row, col);
}

QString AlignmentGrid::cellToolTip(int row, int col) const {
    if (!hasCells() || row < 0 || row >= m_cells.weights.rows() || col < 0 ||
        col >= m_cells.weights.cols()) {
        return {};
    }
    return QStringLiteral("%1 → %2: %3")
        .arg(m_cells.targets[row], m_cells.sources[col])
        .arg(m_cells.weights(row, col), 0, 'f', 2);
}

QSize AlignmentGrid::minimumSizeHint() const {
    if (!hasCells()) {
        return {240, 120};
    }
    return layoutAlignment(m_cells, {}, font(), this).needed.toSize();
}

QSize AlignmentGrid::sizeHint() const {
    if (!hasCells()) {
        return {480, 320};
    }
    return layoutAt(m_cells, 32, font(), this).needed.toSize();
}

bool AlignmentGrid::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        const auto cell = alignmentCellAt(currentLayout(), static_cast<int>(m_cells.weights.rows()),
                                          static_cast<int>(m_cells.weights.cols()), help->pos());
        const QString tip = cell ? cellToolTip(cell->first, cell->second) : QString();
        if (tip.isEmpty()) {
            QToolTip::hideText();
            event->ignore();
        } else {
            QToolTip::showText(help->globalPos(), tip, this);
        }
        return true;
    }
    return QWidget::event(event);
}

void AlignmentGrid::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!hasCells()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(16, 16, -16, -16), Qt::AlignCenter | Qt::TextWordWrap,
                   m_placeholder);
        return;
    }
    AlignmentPaintStyle style;
    style.text = palette().color(QPalette::Text);
    style.background = palette().color(QPalette::Base);
    style.hover = m_hover;
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setRenderHint(QPainter::TextAntialiasing, true);
    paintAlignment(p, m_cells, currentLayout(), style);
}

void AlignmentGrid::mouseMoveEvent(QMouseEvent* event) {
    const auto cell = alignmentCellAt(currentLayout(), static_cast<int>(m_cells.weights.rows()),
                                      static_cast<int>(m_cells.weights.cols()), event->position());
    if (cell != m_hover) {
        m_hover = cell;
        setCursor(cell ? Qt::PointingHandCursor : Qt::ArrowCursor);
        update();
    }
}

void AlignmentGrid::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) {
        return;
    }
    const auto cell = alignmentCellAt(currentLayout(), static_cast<int>(m_cells.weights.rows()),
                                      static_cast<int>(m_cells.weights.cols()), event->position());
    if (cell) {
        emit cellClicked(cell->first, cell->second);
    }
}

void AlignmentGrid::leaveEvent(QEvent*) {
    if (m_hover) {
        m_hover.reset();
        update();
    }
}

}  // namespace attnscope::app
