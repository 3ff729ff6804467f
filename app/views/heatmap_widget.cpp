#include "views/heatmap_widget.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <QApplication>
#include <QFontMetricsF>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QShortcut>
#include <QStyle>
#include <QTimer>
#include <QToolTip>
#include <QWheelEvent>

#include "render/text_extent.h"

namespace attnscope::app {

namespace {

constexpr double kColorBarWidth = 96.0;
constexpr double kGap = 6.0;
constexpr double kMaxZoom = 64.0;

double maxLabelWidth(const QFontMetricsF& fm, const QStringList& labels) {
    return std::min(render::widestAdvance(fm, labels), 160.0);
}

}  // namespace

HeatmapWidget::HeatmapWidget(QWidget* parent)
    : QWidget(parent),
      m_hBar(new QScrollBar(Qt::Horizontal, this)),
      m_vBar(new QScrollBar(Qt::Vertical, this)) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent, false);
    m_hBar->setObjectName(QStringLiteral("heatmapHorizontalBar"));
    m_vBar->setObjectName(QStringLiteral("heatmapVerticalBar"));
    for (QScrollBar* bar : {m_hBar, m_vBar}) {
        bar->hide();
        bar->setFocusPolicy(Qt::NoFocus);  // the keys belong to the map
        connect(bar, &QScrollBar::valueChanged, this, [this] {
            m_pan = QPointF(-m_hBar->value(), -m_vBar->value());
            update();
        });
    }
}

void HeatmapWidget::setMap(const QImage& image, const render::ColorRange& range,
                           const QStringList& rowLabels, const QStringList& colLabels,
                           std::optional<BoolMatrix> allowed) {
    const bool sameSize = image.size() == m_cells;
    m_image = image;
    m_cells = image.size();
    m_range = range;
    m_rowLabels = rowLabels;
    m_colLabels = colLabels;
    // Nothing masked: no hatching to draw and no "masked" legend to show.
    m_allowed = allowed && allowed->minCoeff() == 0 ? std::move(allowed) : std::nullopt;
    m_placeholder.clear();
    if (!sameSize) {
        m_zoom = 1.0;
        m_pan = {};
        m_outlined.clear();
        m_accented.clear();
    }
    clampPan();
    update();
}

void HeatmapWidget::clear(const QString& placeholder) {
    m_image = QImage();
    m_placeholder = placeholder;
    m_outlined.clear();
    m_accented.clear();
    syncScrollBars();
    update();
}

void HeatmapWidget::setTitle(const QString& title) {
    m_title = title;
    update();
}

void HeatmapWidget::setOutlinedCells(std::vector<std::pair<int, int>> cells) {
    m_outlined = std::move(cells);
    update();
}

void HeatmapWidget::setAccentCells(std::vector<std::pair<int, int>> cells, const QColor& color) {
    m_accented = std::move(cells);
    m_accentColor = color;
    update();
}

HeatmapWidget::Layout HeatmapWidget::layout() const {
    Layout l;
    const QFontMetricsF fm(font());
    const double titleH = m_title.isEmpty() ? 0 : fm.height() + kGap;
    const double left = maxLabelWidth(fm, m_rowLabels) + kGap + 4;
    const double top = titleH + maxLabelWidth(fm, m_colLabels) + kGap + 4;
    const double fullW = std::max(10.0, width() - left - kColorBarWidth - kGap);
    const double fullH = std::max(10.0, height() - top - kGap);
    const int rows = std::max(1, m_image.height());
    const int cols = std::max(1, m_image.width());
    // The cells grow exactly by the zoom. A zoomed map whose grid overflows an axis keeps a strip
    // beside it for that axis's scroll bar, so the bar covers no cell; a strip taken from one
    // axis can make the other overflow too, hence the second look.
    l.cell = std::min(fullW / cols, fullH / rows) * m_zoom;
    const double bar = m_zoom > 1.0 ? scrollBarExtent() : 0.0;
    bool hBar = bar > 0 && cols * l.cell > fullW + 0.5;
    bool vBar = bar > 0 && rows * l.cell > fullH + 0.5;
    hBar = hBar || (vBar && bar > 0 && cols * l.cell > fullW - bar + 0.5);
    vBar = vBar || (hBar && bar > 0 && rows * l.cell > fullH - bar + 0.5);
    l.viewport = QRectF(left, top, std::max(10.0, fullW - (vBar ? bar : 0.0)),
                        std::max(10.0, fullH - (hBar ? bar : 0.0)));
    l.grid = QRectF(l.viewport.topLeft() + m_pan, QSizeF(cols * l.cell, rows * l.cell));
    l.labelStep =
        std::max(1, static_cast<int>(std::ceil((fm.height() * 0.9) / std::max(l.cell, 0.01))));
    return l;
}

QRectF HeatmapWidget::cellRect(int row, int col) const {
    const Layout l = layout();
    return {l.grid.left() + col * l.cell, l.grid.top() + row * l.cell, l.cell, l.cell};
}

std::optional<std::pair<int, int>> HeatmapWidget::cellAt(QPointF pos) const {
    if (m_image.isNull()) {
        return std::nullopt;
    }
    const Layout l = layout();
    if (!l.viewport.contains(pos) || !l.grid.contains(pos)) {
        return std::nullopt;
    }
    const int col = static_cast<int>((pos.x() - l.grid.left()) / l.cell);
    const int row = static_cast<int>((pos.y() - l.grid.top()) / l.cell);
    if (row < 0 || col < 0 || row >= m_image.height() || col >= m_image.width()) {
        return std::nullopt;
    }
    return std::make_pair(row, col);
}

void HeatmapWidget::setZoom(double zoom) {
    m_zoom = std::clamp(zoom, 1.0, kMaxZoom);
    clampPan();
    update();
}

void HeatmapWidget::resetZoom() {
    m_pan = {};
    setZoom(1.0);
}

QString HeatmapWidget::windowShortcutsText() {
    return tr(
        "Zoom: Ctrl++ / Ctrl+- (Ctrl+0 whole map), Ctrl+wheel; pan: drag or scroll.\n"
        "Heads: Alt+Left / Alt+Right; layers: Alt+PageUp / Alt+PageDown.\n"
        "With the map focused (click it): +, -, 0, arrows, PageUp/PageDown.");
}

void HeatmapWidget::addWindowShortcuts() {
    const auto add = [this](QKeyCombination keys, auto action) {
        auto* shortcut = new QShortcut(QKeySequence(keys), this);
        shortcut->setContext(Qt::WindowShortcut);  // only while this widget is visible
        connect(shortcut, &QShortcut::activated, this, action);
    };
    const auto zoomIn = [this] { setZoom(m_zoom * 1.25); };
    add(Qt::CTRL | Qt::Key_Plus, zoomIn);
    add(Qt::CTRL | Qt::Key_Equal, zoomIn);  // "+" without Shift on US keyboards
    add(Qt::CTRL | Qt::Key_Minus, [this] { setZoom(m_zoom / 1.25); });
    add(Qt::CTRL | Qt::Key_0, [this] { resetZoom(); });
    add(Qt::ALT | Qt::Key_Left, [this] { emit stepRequested(0, -1); });
    add(Qt::ALT | Qt::Key_Right, [this] { emit stepRequested(0, 1); });
    add(Qt::ALT | Qt::Key_PageUp, [this] { emit stepRequested(-1, 0); });
    add(Qt::ALT | Qt::Key_PageDown, [this] { emit stepRequested(1, 0); });
    setToolTip(windowShortcutsText());
}

// Over a cell the tool tip is the cell's values; elsewhere the widget's own (the keys).
bool HeatmapWidget::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        const auto cell = cellAt(help->pos());
        if (cell && m_tooltip) {
            QToolTip::showText(help->globalPos(), m_tooltip(cell->first, cell->second), this);
            return true;
        }
    }
    return QWidget::event(event);
}

void HeatmapWidget::clampPan() {
    const Layout l = layout();
    const double minX = std::min(0.0, l.viewport.width() - l.grid.width());
    const double minY = std::min(0.0, l.viewport.height() - l.grid.height());
    m_pan.setX(std::clamp(m_pan.x(), minX, 0.0));
    m_pan.setY(std::clamp(m_pan.y(), minY, 0.0));
    syncScrollBars();
}

int HeatmapWidget::scrollBarExtent() const {
    return style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, this);
}

void HeatmapWidget::syncScrollBars() {
    const Layout l = layout();
    const bool shown = !m_image.isNull() && m_zoom > 1.0;
    const QRect v = l.viewport.toAlignedRect();
    const int extent = scrollBarExtent();
    const auto place = [&](QScrollBar* bar, double content, double view, double pan,
                           const QRect& where) {
        const int hidden = static_cast<int>(std::ceil(content - view - 0.5));
        const QSignalBlocker block(bar);
        bar->setVisible(shown && hidden > 0);
        bar->setRange(0, std::max(0, hidden));
        bar->setPageStep(std::max(1, static_cast<int>(view)));
        bar->setSingleStep(std::max(1, static_cast<int>(l.cell)));
        bar->setValue(static_cast<int>(std::lround(-pan)));
        bar->setGeometry(where);
    };
    place(m_hBar, l.grid.width(), l.viewport.width(), m_pan.x(),
          QRect(v.left(), v.bottom() + 1, v.width(), extent));
    place(m_vBar, l.grid.height(), l.viewport.height(), m_pan.y(),
          QRect(v.right() + 1, v.top(), extent, v.height()));
}

void HeatmapWidget::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    clampPan();
}

void HeatmapWidget::focusInEvent(QFocusEvent* event) {
    m_focusedByPress = event->reason() == Qt::MouseFocusReason;
    if (m_focusedByPress) {
        // Valid for the press that brought the focus only: QApplication delivers it right after
        // this event, in the same dispatch. A press on a scroll bar (which takes no focus) gives
        // the map the focus too but never reaches mousePressEvent; the next cell click must not
        // then be taken for a focusing one.
        QTimer::singleShot(0, this, [this] { m_focusedByPress = false; });
    }
    QWidget::focusInEvent(event);
    update();  // the focus frame
}

void HeatmapWidget::focusOutEvent(QFocusEvent* event) {
    m_focusedByPress = false;
    QWidget::focusOutEvent(event);
    update();
}

void HeatmapWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    if (m_image.isNull()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, m_placeholder);
        return;
    }
    const Layout l = layout();
    if (!m_title.isEmpty()) {
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        p.setPen(palette().color(QPalette::WindowText));
        // Elided at the end, not cut at both sides: the start names the head.
        const QFontMetricsF fm(bold);
        p.drawText(QRectF(0, 0, width(), fm.height() + 2), Qt::AlignHCenter,
                   fm.elidedText(m_title, Qt::ElideRight, width()));
        p.setFont(font());
    }
    p.save();
    p.setClipRect(l.viewport);
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);  // one crisp block per cell
    p.drawImage(l.grid, m_image);
    paintMaskHatch(p, l);
    p.setPen(QPen(Qt::white, 2));
    for (const auto& [row, col] : m_outlined) {
        p.drawRect(cellRect(row, col).adjusted(1, 1, -1, -1));
    }
    p.setPen(QPen(m_accentColor, 2));
    for (const auto& [row, col] : m_accented) {
        const QRectF r = cellRect(row, col);
        const double inset = std::min(3.0, r.width() / 4);  // inside a white outline
        p.drawRect(r.adjusted(inset, inset, -inset, -inset));
    }
    if (m_hover) {
        p.setPen(QPen(palette().color(QPalette::Highlight), 2));
        p.drawRect(cellRect(m_hover->first, m_hover->second));
    }
    p.restore();
    paintLabels(p, l);
    paintColorBar(p);
    if (hasFocus()) {  // the plain keys work now: say so
        p.setPen(QPen(palette().color(QPalette::Highlight), 1, Qt::DashLine));
        p.drawRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5));
    }
}

void HeatmapWidget::paintMaskHatch(QPainter& p, const Layout& l) const {
    if (!m_allowed || l.cell < 5) {
        return;  // too small to hatch: flat grey already says "masked"
    }
    const QBrush hatch(QColor(0x55, 0x55, 0x55), Qt::BDiagPattern);
    const int r0 = std::max(0, static_cast<int>((l.viewport.top() - l.grid.top()) / l.cell));
    const int c0 = std::max(0, static_cast<int>((l.viewport.left() - l.grid.left()) / l.cell));
    const int r1 =
        std::min(m_image.height(), r0 + static_cast<int>(l.viewport.height() / l.cell) + 2);
    const int c1 =
        std::min(m_image.width(), c0 + static_cast<int>(l.viewport.width() / l.cell) + 2);
    for (int r = r0; r < r1; ++r) {
        for (int c = c0; c < c1; ++c) {
            if ((*m_allowed)(r, c) == 0) {
                p.fillRect(cellRect(r, c), hatch);
            }
        }
    }
}

void HeatmapWidget::paintLabels(QPainter& p, const Layout& l) const {
    p.setPen(palette().color(QPalette::WindowText));
    const QFontMetricsF fm(font());
    p.save();
    p.setClipRect(QRectF(0, l.viewport.top(), l.viewport.left(), l.viewport.height()));
    for (int r = 0; r < m_rowLabels.size(); r += l.labelStep) {
        const QRectF cell = cellRect(r, 0);
        const QString text =
            fm.elidedText(m_rowLabels[r], Qt::ElideRight, l.viewport.left() - kGap);
        p.drawText(
            QRectF(0, cell.center().y() - fm.height() / 2, l.viewport.left() - kGap, fm.height()),
            Qt::AlignRight | Qt::AlignVCenter, text);
    }
    p.restore();
    p.save();
    p.setClipRect(QRectF(l.viewport.left(), 0, l.viewport.width(), l.viewport.top()));
    for (int c = 0; c < m_colLabels.size(); c += l.labelStep) {
        const QRectF cell = cellRect(0, c);
        p.save();
        p.translate(cell.center().x() + fm.ascent() / 2 - 1, l.viewport.top() - kGap);
        p.rotate(-90);
        p.drawText(QPointF(0, 0), fm.elidedText(m_colLabels[c], Qt::ElideRight, 160));
        p.restore();
    }
    p.restore();
}

void HeatmapWidget::paintColorBar(QPainter& p) const {
    const QFontMetricsF fm(font());
    const QRectF bar(
        width() - kColorBarWidth + 8, layout().viewport.top(), 14,
        std::max(40.0, std::min(260.0, height() - layout().viewport.top() - 2 * kGap)));
    for (int y = 0; y < static_cast<int>(bar.height()); ++y) {
        const double t = 1.0 - y / bar.height();
        p.fillRect(QRectF(bar.left(), bar.top() + y, bar.width(), 1.0),
                   QColor(render::colorAt(m_range.colormap, t)));
    }
    p.setPen(palette().color(QPalette::WindowText));
    p.drawRect(bar);
    const auto number = [](double v) { return QString::number(v, 'g', 3); };
    const QString hi = number(m_range.hi);
    const QString lo = number(m_range.lo);
    p.drawText(QPointF(bar.right() + 4, bar.top() + fm.ascent()), hi);
    p.drawText(QPointF(bar.right() + 4, bar.bottom()), lo);
    // The caption runs down beside the numbers, never over them.
    const double numbers = std::max(fm.horizontalAdvance(hi), fm.horizontalAdvance(lo));
    p.save();
    p.translate(bar.right() + 8 + numbers, bar.center().y());
    p.rotate(90);
    p.drawText(QRectF(-bar.height() / 2, -fm.height(), bar.height(), fm.height()), Qt::AlignCenter,
               fm.elidedText(m_range.caption, Qt::ElideRight, bar.height()));
    p.restore();
    if (m_allowed) {
        const QRectF swatch(bar.left(), bar.bottom() + 10, 14, 14);
        p.fillRect(swatch, render::maskedCellColor());
        p.fillRect(swatch, QBrush(QColor(0x55, 0x55, 0x55), Qt::BDiagPattern));
        p.drawText(QPointF(swatch.right() + 4, swatch.bottom() - 2), tr("masked"));
    }
}

void HeatmapWidget::mouseMoveEvent(QMouseEvent* event) {
    if (m_pressAt && !m_dragging &&
        (event->position() - *m_pressAt).manhattanLength() >= QApplication::startDragDistance()) {
        m_dragging = true;
        if (m_zoom > 1.0) {
            setCursor(Qt::ClosedHandCursor);
        }
    }
    if (m_dragging) {
        if (m_zoom > 1.0) {
            m_pan = m_panAtPress + (event->position() - *m_pressAt);
            clampPan();
            update();
        }
        return;
    }
    const auto cell = cellAt(event->position());
    if (cell != m_hover) {
        m_hover = cell;
        update();
        if (cell) {
            emit cellHovered(cell->first, cell->second);
        }
    }
    if (cell && m_tooltip) {
        QToolTip::showText(event->globalPosition().toPoint(), m_tooltip(cell->first, cell->second),
                           this);
    } else {
        QToolTip::hideText();
    }
}

void HeatmapWidget::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) {
        m_pressAt = event->position();
        m_dragging = false;
        m_panAtPress = m_pan;
        // The focus arrives before the press it comes with (QApplication gives it first).
        m_pressOnlyFocuses = m_focusClickOnly && m_focusedByPress;
    }
    m_focusedByPress = false;
}

// The click is decided on release: a press that became a drag panned the map and must not
// also toggle a mask cell or move the Predictions row.
void HeatmapWidget::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || !m_pressAt) {
        return;
    }
    const QPointF pressedAt = *m_pressAt;
    const bool onlyFocuses = std::exchange(m_pressOnlyFocuses, false);
    const bool click = !m_dragging && !onlyFocuses;
    m_pressAt.reset();
    m_dragging = false;
    unsetCursor();
    if (click) {
        if (const auto cell = cellAt(pressedAt)) {
            emit cellClicked(cell->first, cell->second);
        }
    }
}

void HeatmapWidget::wheelEvent(QWheelEvent* event) {
    if (event->modifiers() & Qt::ControlModifier) {
        const double factor = std::pow(1.0015, event->angleDelta().y());
        // Keep the point under the mouse fixed while zooming.
        const Layout before = layout();
        const QPointF anchor = event->position() - before.grid.topLeft();
        const double old = m_zoom;
        m_zoom = std::clamp(m_zoom * factor, 1.0, kMaxZoom);
        m_pan += anchor - anchor * (m_zoom / old);
        clampPan();
    } else {
        m_pan += QPointF(event->angleDelta().x(), event->angleDelta().y()) / 2.0;
        clampPan();
    }
    update();
    event->accept();
}

void HeatmapWidget::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
        case Qt::Key_Plus:
        case Qt::Key_Equal:
            setZoom(m_zoom * 1.25);
            return;
        case Qt::Key_Minus:
            setZoom(m_zoom / 1.25);
            return;
        case Qt::Key_0:
            resetZoom();
            return;
        default:
            QWidget::keyPressEvent(event);  // arrows and page keys go to the head view
    }
}

void HeatmapWidget::leaveEvent(QEvent*) {
    m_hover.reset();
    update();
}

}  // namespace attnscope::app
