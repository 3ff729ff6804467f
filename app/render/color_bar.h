// A vertical colour bar for a heatmap figure: the gradient, tick marks with numbers, and the
// caption ("attention weight"), painted as vector shapes so it stays sharp in SVG and PDF.
// Ticks are the range's two ends plus round numbers in between (powers of ten on a log
// scale); a round number whose label would overlap an end's is dropped.
// QtGui only; pure painting, any thread that may paint.
#pragma once

#include <vector>

#include <QFont>
#include <QRectF>
#include <QString>

#include "render/heatmap_image.h"

class QPainter;

namespace attnscope::render {

struct ColorBarTick {
    double position = 0;  // 0 = bottom of the bar (range.lo), 1 = top (range.hi)
    QString text;
    bool end = false;  // one of the range's two ends, always shown
};

// Ends first, then the round numbers between them, by position.
std::vector<ColorBarTick> colorBarTicks(const ColorRange& range);

// What the colours mean, for people: the range's caption, except that a log scale is described
// in words ("attention weight (log scale)") because its ticks show weights, not exponents.
QString colorBarCaption(const ColorRange& range);

struct ColorBarStyle {
    QFont tickFont;
    QFont captionFont;
    double tickLength = 6;        // figure units
    double gap = 4;               // between tick and number, number and caption
    double maxCaptionLength = 0;  // longer captions are elided; 0 = no limit
};

// Width the bar's numbers and caption take right of a bar of `barWidth`.
double colorBarLabelWidth(const ColorRange& range, const ColorBarStyle& style,
                          const QPaintDevice* device);

// Paints the gradient in `bar`, its frame, the ticks right of it and the caption rotated along
// its right side. Text is drawn in the painter's current pen colour.
void paintColorBar(QPainter& painter, const QRectF& bar, const ColorRange& range,
                   const ColorBarStyle& style);

}  // namespace attnscope::render
