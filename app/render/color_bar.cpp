#include "render/color_bar.h"

#include <algorithm>
#include <cmath>

#include <QFontMetricsF>
#include <QLinearGradient>
#include <QPainter>

namespace attnscope::render {

namespace {

constexpr int kGradientStops = 32;  // enough that the piecewise-linear gradient matches the map

// 10 with a Unicode superscript exponent: "10⁻³". Real text, so it survives in SVG and PDF.
QString powerOfTen(int exponent) {
    static const QString digits = QStringLiteral("⁰¹²³⁴⁵⁶⁷⁸⁹");
    QString out = QStringLiteral("10");
    if (exponent < 0) {
        out += QChar(0x207B);  // superscript minus
    }
    for (const QChar c : QString::number(std::abs(exponent))) {
        out += digits[c.digitValue()];
    }
    return out;
}

QString endText(double value, int digits) {
    return QString::number(value, 'g', digits);
}

// Round steps: 1, 2 or 5 times a power of ten, about five of them over the span.
double niceStep(double span) {
    const double raw = span / 5.0;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double norm = raw / magnitude;
    const double factor = norm < 1.5 ? 1.0 : norm < 3.5 ? 2.0 : norm < 7.5 ? 5.0 : 10.0;
    return factor * magnitude;
}

void addLinearTicks(const ColorRange& range, std::vector<ColorBarTick>& ticks) {
    const double span = range.hi - range.lo;
    const double step = niceStep(span);
    const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
    for (double k = std::ceil(range.lo / step); k * step <= range.hi + 1e-9 * span; k += 1.0) {
        const double pos = (k * step - range.lo) / span;
        ticks.push_back({pos, QString::number(k * step, 'f', decimals), false});
    }
}

void addLogTicks(const ColorRange& range, std::vector<ColorBarTick>& ticks) {
    const double span = range.hi - range.lo;
    for (double e = std::ceil(range.lo - 1e-9); e <= range.hi + 1e-9; e += 1.0) {
        const auto exponent = static_cast<int>(e);
        ticks.push_back({(e - range.lo) / span,
                         exponent == 0 ? QStringLiteral("1") : powerOfTen(exponent), false});
    }
}

}  // namespace

std::vector<ColorBarTick> colorBarTicks(const ColorRange& range) {
    const double span = range.hi - range.lo;
    const bool log = range.scaling == Scaling::Log;
    // Log ends are weights like 0.00022: two digits say enough beside the powers of ten.
    const auto shown = [&](double v) {
        return log ? endText(std::pow(10.0, v), 2) : endText(v, 3);
    };
    std::vector<ColorBarTick> ticks{{0.0, shown(range.lo), true}, {1.0, shown(range.hi), true}};
    if (!(span > 0) || !std::isfinite(span)) {
        ticks.pop_back();
        return ticks;
    }
    std::vector<ColorBarTick> round;
    if (log) {
        addLogTicks(range, round);
    } else {
        addLinearTicks(range, round);
    }
    for (const ColorBarTick& t : round) {
        // A round number at an end replaces the end's label (0 rather than 0.000).
        if (t.position < 1e-6) {
            ticks[0].text = t.text;
        } else if (t.position > 1 - 1e-6) {
            ticks[1].text = t.text;
        } else {
            ticks.push_back(t);
        }
    }
    return ticks;
}

QString colorBarCaption(const ColorRange& range) {
    if (range.scaling == Scaling::Log) {
        return QStringLiteral("attention weight (log scale)");
    }
    return range.caption.isEmpty() ? QStringLiteral("attention weight") : range.caption;
}

double colorBarLabelWidth(const ColorRange& range, const ColorBarStyle& style,
                          const QPaintDevice* device) {
    const QFontMetricsF tickMetrics(style.tickFont, device);
    double numbers = 0;
    for (const ColorBarTick& t : colorBarTicks(range)) {
        numbers = std::max(numbers, tickMetrics.horizontalAdvance(t.text));
    }
    const QFontMetricsF captionMetrics(style.captionFont, device);
    return style.tickLength + style.gap + numbers + 2 * style.gap + captionMetrics.height();
}

void paintColorBar(QPainter& painter, const QRectF& bar, const ColorRange& range,
                   const ColorBarStyle& style) {
    QLinearGradient gradient(bar.bottomLeft(), bar.topLeft());
    for (int i = 0; i <= kGradientStops; ++i) {
        const double t = i / double(kGradientStops);
        gradient.setColorAt(t, QColor(colorAt(range.colormap, t)));
    }
    painter.save();
    const QColor ink = painter.pen().color();
    painter.fillRect(bar, gradient);
    QPen frame(ink, std::max(1.0, style.tickLength / 8));
    frame.setCapStyle(Qt::FlatCap);
    painter.setPen(frame);
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(bar);

    const QFontMetricsF fm(style.tickFont, painter.device());
    painter.setFont(style.tickFont);
    std::vector<double> usedY;  // label centres already taken, so round ticks never overlap
    double numbersRight = bar.right();
    for (const ColorBarTick& t : colorBarTicks(range)) {
        const double y = bar.bottom() - t.position * bar.height();
        const bool clash = std::any_of(usedY.begin(), usedY.end(), [&](double other) {
            return std::abs(other - y) < fm.height() * 1.05;
        });
        if (clash && !t.end) {
            continue;
        }
        usedY.push_back(y);
        painter.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + style.tickLength, y));
        const double x = bar.right() + style.tickLength + style.gap;
        painter.drawText(QPointF(x, y + (fm.ascent() - fm.descent()) / 2), t.text);
        numbersRight = std::max(numbersRight, x + fm.horizontalAdvance(t.text));
    }

    // The caption is centred on the bar; one longer than the bar keeps its lower end at the
    // bar's bottom (so it never runs into the legend below) and grows upwards.
    const QFontMetricsF cm(style.captionFont, painter.device());
    painter.setFont(style.captionFont);
    QString caption = colorBarCaption(range);
    if (style.maxCaptionLength > 0) {
        caption = cm.elidedText(caption, Qt::ElideRight, style.maxCaptionLength);
    }
    const double length = cm.horizontalAdvance(caption);
    const double centre = length <= bar.height() ? bar.center().y() : bar.bottom() - length / 2;
    painter.translate(numbersRight + 2 * style.gap, centre);
    painter.rotate(-90);  // reads bottom to top, like matplotlib's colour bar labels
    painter.drawText(QRectF(-length / 2 - 1, 0, length + 2, cm.height()),
                     Qt::AlignCenter | Qt::TextDontClip, caption);
    painter.restore();
}

}  // namespace attnscope::render
