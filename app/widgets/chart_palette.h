// Colours shared by the entropy charts and the line view: the Okabe–Ito qualitative palette
// (Okabe & Ito 2008, "Color Universal Design"), whose colours stay distinct under the common
// colour-vision deficiencies, and a test for dark widget palettes. QtGui only, header-only.
#pragma once

#include <array>

#include <QChart>
#include <QColor>
#include <QPalette>

namespace attnscope::app {

// Okabe–Ito without black (black is the text colour in light themes). Order chosen so the first
// colours contrast best with both white and dark grey backgrounds; yellow comes last because it
// is faint on white.
inline QColor okabeIto(int i) {
    static constexpr std::array<QRgb, 7> kColors = {
        0xFF0072B2,  // blue
        0xFFD55E00,  // vermillion
        0xFF009E73,  // bluish green
        0xFFCC79A7,  // reddish purple
        0xFFE69F00,  // orange
        0xFF56B4E9,  // sky blue
        0xFFF0E442,  // yellow
    };
    const auto n = static_cast<int>(kColors.size());
    return QColor::fromRgba(kColors[static_cast<std::size_t>(((i % n) + n) % n)]);
}

inline bool isDarkPalette(const QPalette& palette) {
    return palette.color(QPalette::Window).lightnessF() < 0.5;
}

// The primary data colour for a palette: Okabe–Ito blue is too dark on a dark background, so
// dark themes use sky blue instead.
inline QColor primaryDataColor(const QPalette& palette) {
    return isDarkPalette(palette) ? okabeIto(5) : okabeIto(0);
}

// The grey of dashed reference lines (a maximum, offset 0): visible but quieter than the data.
inline QColor referenceLineColor(const QPalette& palette) {
    return isDarkPalette(palette) ? QColor(200, 200, 200) : QColor(90, 90, 90);
}

// The outline of a marker or bar filled with `fill`: darker on light themes; on dark ones the
// fill itself, which already stands out.
inline QColor outlineColor(const QColor& fill, const QPalette& palette) {
    return fill.darker(isDarkPalette(palette) ? 100 : 130);
}

// Light or dark chart theme to match `palette`. setTheme resets series colours, so callers set
// theirs afterwards; returns the primary data colour for them.
inline QColor applyChartTheme(QChart* chart, const QPalette& palette) {
    const auto theme = isDarkPalette(palette) ? QChart::ChartThemeDark : QChart::ChartThemeLight;
    if (chart->theme() != theme) {
        chart->setTheme(theme);
    }
    return primaryDataColor(palette);
}

// `color` at opacity `alpha` (0 … 1): fills that let what is behind them show.
inline QColor withAlpha(QColor color, float alpha) {
    color.setAlphaF(alpha);
    return color;
}

// The highlight colour for the selected item (vermillion in both themes).
inline QColor selectionColor() {
    return okabeIto(1);
}

// The colour of overlay slot `slot` in the line view: slot 0 (the selected head) takes the
// primary data colour, the others the remaining Okabe–Ito colours, ordered so that the faint
// one for the background (yellow on light, blue on dark) comes last.
inline QColor overlayColor(int slot, const QPalette& palette) {
    if (slot <= 0) {
        return primaryDataColor(palette);
    }
    static constexpr std::array<int, 6> kLight = {1, 2, 3, 4, 5, 6};
    static constexpr std::array<int, 6> kDark = {1, 2, 3, 4, 6, 0};
    const auto& order = isDarkPalette(palette) ? kDark : kLight;
    return okabeIto(order[static_cast<std::size_t>((slot - 1) % 6)]);
}

inline constexpr int kMaxOverlaySlots = 7;  // distinct colours available

}  // namespace attnscope::app
