#include "analyses/lens/lens_colors.h"

#include <array>
#include <cmath>
#include <vector>

#include <QFontMetricsF>
#include <QPainter>

namespace attnscope::app {

namespace {

struct RankBin {
    int last;  // the bin holds ranks up to this one
    const char* label;
    QColor background;
};

// ColorBrewer's "Greens", darkest for rank 1.
const std::array<RankBin, 4> kBins = {{
    {1, "1", QColor(35, 139, 69)},
    {5, "2–5", QColor(116, 196, 118)},
    {20, "6–20", QColor(186, 228, 179)},
    {100, "21–100", QColor(237, 248, 233)},
}};

constexpr double kSwatchGap = 4;  // between a swatch and its label
constexpr double kBinGap = 12;    // between one bin's label and the next swatch

}  // namespace

std::optional<QColor> rankBackground(int rank) {
    for (const RankBin& bin : kBins) {
        if (rank >= 1 && rank <= bin.last) {
            return bin.background;
        }
    }
    return std::nullopt;
}

std::optional<QColor> rankText(int rank) {
    if (rank == 1) {
        return QColor(Qt::white);
    }
    return rankBackground(rank) ? std::optional<QColor>(QColor(Qt::black)) : std::nullopt;
}

namespace {

// One piece of the legend: a swatch (none for the lead-in text) and its text.
struct LegendPart {
    std::optional<QRectF> swatch;
    std::optional<QColor> fill;  // none: an empty swatch (ranks past 100)
    QRectF textRect;
    QString text;
};

std::vector<LegendPart> legendParts(const QFontMetricsF& fm, QPointF at, double height) {
    const double swatch = height * 0.7;
    double x = at.x();
    std::vector<LegendPart> parts;
    const auto add = [&](std::optional<QColor> fill, bool withSwatch, const QString& text) {
        LegendPart part{std::nullopt, fill, {}, text};
        if (withSwatch) {
            x += kBinGap;
            part.swatch = QRectF(x, at.y() + (height - swatch) / 2, swatch, swatch);
            x += swatch + kSwatchGap;
        }
        const double w = std::ceil(fm.horizontalAdvance(text)) + 1;
        part.textRect = QRectF(x, at.y(), w, height);
        x += w;
        parts.push_back(part);
    };
    add(std::nullopt, false, QObject::tr("target's rank:"));
    for (const RankBin& b : kBins) {
        add(b.background, true, QString::fromUtf8(b.label));
    }
    add(std::nullopt, true, QObject::tr("> 100"));
    return parts;
}

}  // namespace

double rankLegendWidth(const QFontMetricsF& fm, double height) {
    return legendParts(fm, {0, 0}, height).back().textRect.right();
}

double paintRankLegend(QPainter& p, QPointF at, double height, const QColor& text) {
    const std::vector<LegendPart> parts =
        legendParts(QFontMetricsF(p.font(), p.device()), at, height);
    for (const LegendPart& part : parts) {
        if (part.swatch) {
            p.setPen(QColor(128, 128, 128));
            p.setBrush(part.fill ? QBrush(*part.fill) : QBrush(Qt::NoBrush));
            p.drawRect(*part.swatch);
        }
        p.setPen(text);
        p.drawText(part.textRect, Qt::AlignLeft | Qt::AlignVCenter, part.text);
    }
    return parts.back().textRect.right() - at.x();
}

LensLegend::LensLegend(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("lensLegend"));
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
}

QSize LensLegend::sizeHint() const {
    const double h = fontMetrics().height() + 4;
    return {static_cast<int>(std::ceil(rankLegendWidth(QFontMetricsF(font(), this), h))) + 2,
            static_cast<int>(h)};
}

void LensLegend::paintEvent(QPaintEvent*) {
    QPainter p(this);
    paintRankLegend(p, {0, 0}, height(), palette().color(QPalette::WindowText));
}

}  // namespace attnscope::app
