// Draws one attention map as a raster with token labels on both axes (query rows, key
// columns), a colour bar, hatched masked cells and a hover tooltip. Zoom with Ctrl+wheel or
// +/-, pan by dragging, scrolling or the scroll bars a zoomed map shows (issue 30: they say
// there are more rows and columns than are in view), 0 resets. A click (press and release that
// moved less than QApplication::startDragDistance) emits cellClicked; a drag only pans. The widget
// knows nothing about models: it is handed an image, labels and a tooltip function, so the head
// view and the comparison view share it.
#pragma once

#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include <QColor>
#include <QImage>
#include <QStringList>
#include <QWidget>

#include "attnscope/base/tensor.h"
#include "render/heatmap_image.h"

class QScrollBar;

namespace attnscope::app {

class HeatmapWidget : public QWidget {
    Q_OBJECT

public:
    using TooltipFn = std::function<QString(int row, int col)>;

    explicit HeatmapWidget(QWidget* parent = nullptr);

    // `image` has one pixel per cell; `masked` (optional) marks cells drawn hatched.
    void setMap(const QImage& image, const render::ColorRange& range, const QStringList& rowLabels,
                const QStringList& colLabels, std::optional<BoolMatrix> allowed);
    // Shows `placeholder` instead of a map. Zoom and pan stay for a next map of the same size,
    // so stepping through heads that are computed on demand keeps the view where it was.
    void clear(const QString& placeholder);
    void setTitle(const QString& title);

    const QString& title() const { return m_title; }

    void setTooltipFunction(TooltipFn fn) { m_tooltip = std::move(fn); }

    // The tool tip shown over a cell (empty without a tooltip function).
    QString cellToolTip(int row, int col) const {
        return m_tooltip ? m_tooltip(row, col) : QString();
    }

    // Cells drawn with a white outline, e.g. gold dependency arcs. (row, col) pairs.
    void setOutlinedCells(std::vector<std::pair<int, int>> cells);
    // A second set drawn inside the first in `color` (coreference arcs beside dependency arcs).
    void setAccentCells(std::vector<std::pair<int, int>> cells, const QColor& color);

    const QImage& image() const { return m_image; }

    // The text shown instead of a map; empty while a map is shown.
    const QString& placeholder() const { return m_placeholder; }

    // The on-screen rectangle of a cell in widget coordinates (for tests and overlays).
    QRectF cellRect(int row, int col) const;
    std::optional<std::pair<int, int>> cellAt(QPointF pos) const;

    double zoom() const { return m_zoom; }

    void setZoom(double zoom);
    // Zoom back to the whole map.
    void resetZoom();

    // Window-wide keys for an owner that shows one map at a time (the head view): Ctrl++ and
    // Ctrl+= zoom in, Ctrl+- zooms out, Ctrl+0 resets, Alt+Left/Alt+Right ask for the
    // previous/next head and Alt+PageUp/Alt+PageDown for the previous/next layer
    // (stepRequested). They work wherever the keyboard focus is in the window, the sentence
    // field included, while this widget is visible: a line edit takes none of these, so typing
    // stays untouched. Plain +, -, 0 and the arrows still work when the map has the focus.
    // The tool tip outside the cells lists the keys.
    void addWindowShortcuts();

    // The key hints of addWindowShortcuts, for tool tips and help.
    static QString windowShortcutsText();

    QSize minimumSizeHint() const override { return {240, 200}; }

    // For an owner whose clicks change something (the head view moves the Predictions row):
    // the click that gives an unfocused map the keyboard focus only focuses it, so clicking the
    // map to use its keys changes nothing. Off by default.
    void setFocusClickOnly(bool on) { m_focusClickOnly = on; }

    // The scroll bars of a zoomed map (hidden while the whole map shows), for tests.
    const QScrollBar* horizontalScrollBar() const { return m_hBar; }

    const QScrollBar* verticalScrollBar() const { return m_vBar; }

signals:
    void cellHovered(int row, int col);
    void cellClicked(int row, int col);
    // From the window shortcuts: step by (dLayer, dHead); the owner decides what that shows.
    void stepRequested(int dLayer, int dHead);

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void focusInEvent(QFocusEvent* event) override;
    void focusOutEvent(QFocusEvent* event) override;

private:
    struct Layout {
        QRectF grid;        // where the cells are, before clipping
        QRectF viewport;    // visible part for cells
        double cell = 0;    // cell edge in pixels
        int labelStep = 1;  // draw every n-th label when cells are small
    };

    Layout layout() const;
    void paintLabels(QPainter& p, const Layout& l) const;
    void paintMaskHatch(QPainter& p, const Layout& l) const;
    void paintColorBar(QPainter& p) const;
    void clampPan();
    // Places the scroll bars along the viewport's right and bottom edges and sets their ranges
    // from the zoom and pan; shown only along an axis that does not fit.
    void syncScrollBars();
    int scrollBarExtent() const;

    QImage m_image;
    QSize m_cells;  // of the last map set, kept through clear()
    render::ColorRange m_range;
    QStringList m_rowLabels;
    QStringList m_colLabels;
    std::optional<BoolMatrix> m_allowed;
    std::vector<std::pair<int, int>> m_outlined;
    std::vector<std::pair<int, int>> m_accented;
    QColor m_accentColor;
    QString m_title;
    QString m_placeholder;
    TooltipFn m_tooltip;
    double m_zoom = 1.0;
    QPointF m_pan;  // offset of the grid inside the viewport, in pixels (<= 0)
    // The left-button press: where, and whether it has since moved far enough to be a drag
    // (which pans) rather than a click (which emits cellClicked on release).
    std::optional<QPointF> m_pressAt;
    bool m_dragging = false;
    QPointF m_panAtPress;
    std::optional<std::pair<int, int>> m_hover;
    QScrollBar* m_hBar;
    QScrollBar* m_vBar;
    bool m_focusClickOnly = false;
    bool m_focusedByPress = false;  // the focus came with the mouse press now under way
    bool m_pressOnlyFocuses = false;
};

}  // namespace attnscope::app
