#include "render/colormap.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "render/named_enum.h"

namespace attnscope::render {

namespace {

// Nine evenly spaced stops of matplotlib's viridis and magma and eleven of Moreland's
// cool-warm map; linear interpolation between them in sRGB stays within a couple of levels of
// the full 256-entry tables, which are data no Debian package ships in a C++-usable form.
constexpr std::array<QRgb, 9> kViridis = {0x440154, 0x482878, 0x3E4A89, 0x31688E, 0x26828E,
                                          0x1F9E89, 0x35B779, 0x6DCD59, 0xFDE725};
constexpr std::array<QRgb, 9> kMagma = {0x000004, 0x1C1044, 0x4F127B, 0x812581, 0xB5367A,
                                        0xE55064, 0xFB8761, 0xFEC287, 0xFCFDBF};
constexpr std::array<QRgb, 11> kCoolWarm = {0x3B4CC0, 0x5977E3, 0x7B9FF9, 0x9EBEFF,
                                            0xC0D4F5, 0xDDDCDC, 0xF2CBB7, 0xF7AC8E,
                                            0xEE8468, 0xD65244, 0xB40426};

template <std::size_t N>
std::array<QRgb, 256> buildTable(const std::array<QRgb, N>& stops) {
    std::array<QRgb, 256> table{};
    for (int i = 0; i < 256; ++i) {
        const double x = i / 255.0 * (N - 1);
        const auto lo = static_cast<std::size_t>(std::floor(x));
        const std::size_t hi = std::min(lo + 1, N - 1);
        const double f = x - static_cast<double>(lo);
        const auto mix = [&](int a, int b) {
            return static_cast<int>(std::lround(a + (b - a) * f));
        };
        table[static_cast<std::size_t>(i)] =
            qRgb(mix(qRed(stops[lo]), qRed(stops[hi])), mix(qGreen(stops[lo]), qGreen(stops[hi])),
                 mix(qBlue(stops[lo]), qBlue(stops[hi])));
    }
    return table;
}

const std::array<QRgb, 256>& table(Colormap map) {
    // In Colormap's order.
    static const std::array<std::array<QRgb, 256>, 3> tables = {
        buildTable(kViridis), buildTable(kMagma), buildTable(kCoolWarm)};
    const auto i = static_cast<std::size_t>(map);
    return tables[i < tables.size() ? i : 0];
}

constexpr EnumName<Colormap> kColormapNames[] = {
    {Colormap::Viridis, "viridis"}, {Colormap::Magma, "magma"}, {Colormap::Diverging, "diverging"}};

}  // namespace

QRgb colorAt(Colormap map, double t) {
    if (!(t >= 0.0)) {  // also catches NaN
        t = 0.0;
    }
    const auto i = static_cast<std::size_t>(std::lround(std::min(t, 1.0) * 255.0));
    return table(map)[i];
}

QString colormapName(Colormap map) {
    return enumName(kColormapNames, map, "viridis");
}

bool colormapFromName(const QString& name, Colormap* out) {
    return enumFromName(kColormapNames, name, out);
}

QStringList sequentialColormapNames() {
    return {QStringLiteral("viridis"), QStringLiteral("magma")};
}

}  // namespace attnscope::render
