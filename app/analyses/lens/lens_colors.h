// The logit lens's colours: each cell by the target's rank there (1 = the stage already predicts
// it), in a green ramp of four bins — 1, 2–5, 6–20, 21–100 — and no colour beyond, with dark
// text on the pale bins and white on the darkest. The legend that says so, painted for the tab
// (LensLegend) and for the exported figure alike. QtGui and one small widget; GUI thread or
// any painting one.
#pragma once

#include <optional>

#include <QColor>
#include <QFont>
#include <QFontMetricsF>
#include <QPointF>
#include <QWidget>

class QPainter;

namespace attnscope::app {

// The background of a cell whose target ranks `rank`; none past 100.
std::optional<QColor> rankBackground(int rank);

// The text colour on that background (none: the view's own).
std::optional<QColor> rankText(int rank);

// The width paintRankLegend takes in `fm`'s font at `height`.
double rankLegendWidth(const QFontMetricsF& fm, double height);

// "target's rank:" followed by a swatch and its range for each bin and "> 100", left to right
// from `at` (the top left), `height` high, text in `text`. Returns the width it took.
double paintRankLegend(QPainter& p, QPointF at, double height, const QColor& text);

// The legend as a widget, sized to fit it.
class LensLegend : public QWidget {
public:
    explicit LensLegend(QWidget* parent = nullptr);

    QSize sizeHint() const override;

    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void paintEvent(QPaintEvent* event) override;
};

}  // namespace attnscope::app
