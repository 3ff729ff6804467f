#include "render/heatmap_image.h"

#include <algorithm>
#include <cmath>

#include "render/named_enum.h"

namespace attnscope::render {

namespace {

constexpr double kLogFloor = 1e-4;

constexpr EnumName<Scaling> kScalingNames[] = {
    {Scaling::Linear, "linear"}, {Scaling::Log, "log"}, {Scaling::PerRow, "per-row"}};

bool isAllowed(const BoolMatrix* allowed, Eigen::Index r, Eigen::Index c) {
    return allowed == nullptr || (*allowed)(r, c) != 0;
}

}  // namespace

QString scalingName(Scaling s) {
    return enumName(kScalingNames, s, "linear");
}

bool scalingFromName(const QString& name, Scaling* out) {
    return enumFromName(kScalingNames, name, out);
}

QColor maskedCellColor() {
    return QColor(0x80, 0x80, 0x80);
}

QColor nonFiniteCellColor() {
    return QColor(0xff, 0x00, 0xff);
}

ColorRange colorRangeOf(const Eigen::Ref<const Matrix>& v, const BoolMatrix* allowed,
                        const HeatmapStyle& style) {
    ColorRange range;
    range.scaling = style.scaling;
    range.colormap = style.colormap;
    double maxV = 0.0;
    double minPositive = 1.0;
    for (Eigen::Index r = 0; r < v.rows(); ++r) {
        for (Eigen::Index c = 0; c < v.cols(); ++c) {
            if (isAllowed(allowed, r, c)) {
                maxV = std::max(maxV, static_cast<double>(v(r, c)));
                if (v(r, c) > 0) {
                    minPositive = std::min(minPositive, static_cast<double>(v(r, c)));
                }
            }
        }
    }
    switch (style.scaling) {
        case Scaling::Linear:
            range = {0.0, maxV > 0 ? maxV : 1.0, style.scaling, style.colormap,
                     QStringLiteral("attention weight")};
            break;
        case Scaling::Log:
            range = {std::log10(std::max(kLogFloor, std::min(minPositive, maxV))),
                     std::log10(std::max(maxV, kLogFloor * 10)), style.scaling, style.colormap,
                     QStringLiteral("log10 attention weight")};
            if (range.hi <= range.lo) {
                range.lo = range.hi - 1.0;
            }
            break;
        case Scaling::PerRow:
            range = {0.0, 1.0, style.scaling, style.colormap,
                     QStringLiteral("weight / row maximum")};
            break;
    }
    return range;
}

double normalizedPosition(const ColorRange& range, double value) {
    if (range.scaling == Scaling::Log) {
        value = std::log10(std::max(value, kLogFloor * 1e-3));
    }
    const double t = (value - range.lo) / (range.hi - range.lo);
    return std::clamp(t, 0.0, 1.0);
}

QImage heatmapImageInRange(const Eigen::Ref<const Matrix>& v, const BoolMatrix* allowed,
                           const HeatmapStyle& style, const ColorRange& range) {
    QImage img(static_cast<int>(v.cols()), static_cast<int>(v.rows()), QImage::Format_RGB32);
    const QRgb masked = maskedCellColor().rgb();
    const QRgb nonFinite = nonFiniteCellColor().rgb();
    for (Eigen::Index r = 0; r < v.rows(); ++r) {
        auto* line = reinterpret_cast<QRgb*>(img.scanLine(static_cast<int>(r)));
        const double rowMax = std::max(1e-30, static_cast<double>(v.row(r).maxCoeff()));
        for (Eigen::Index c = 0; c < v.cols(); ++c) {
            if (!isAllowed(allowed, r, c)) {
                line[c] = masked;
                continue;
            }
            double value = v(r, c);
            if (!std::isfinite(value)) {
                line[c] = nonFinite;
                continue;
            }
            if (style.scaling == Scaling::PerRow) {
                value /= rowMax;
            }
            line[c] = colorAt(style.colormap, normalizedPosition(range, value));
        }
    }
    return img;
}

QImage heatmapImage(const Eigen::Ref<const Matrix>& v, const BoolMatrix* allowed,
                    const HeatmapStyle& style, ColorRange* rangeOut) {
    const ColorRange range = colorRangeOf(v, allowed, style);
    if (rangeOut != nullptr) {
        *rangeOut = range;
    }
    return heatmapImageInRange(v, allowed, style, range);
}

QImage differenceImage(const Eigen::Ref<const Matrix>& d, ColorRange* rangeOut) {
    const double m =
        std::max(1e-6, static_cast<double>(d.unaryExpr([](float x) {
                                                return std::isfinite(x) ? std::abs(x) : 0.0f;
                                            }).maxCoeff()));
    const ColorRange range{-m, m, Scaling::Linear, Colormap::Diverging,
                           QStringLiteral("difference of weights (A − B)")};
    QImage img(static_cast<int>(d.cols()), static_cast<int>(d.rows()), QImage::Format_RGB32);
    for (Eigen::Index r = 0; r < d.rows(); ++r) {
        auto* line = reinterpret_cast<QRgb*>(img.scanLine(static_cast<int>(r)));
        for (Eigen::Index c = 0; c < d.cols(); ++c) {
            line[c] = std::isfinite(d(r, c))
                          ? colorAt(Colormap::Diverging, normalizedPosition(range, d(r, c)))
                          : nonFiniteCellColor().rgb();
        }
    }
    if (rangeOut != nullptr) {
        *rangeOut = range;
    }
    return img;
}

}  // namespace attnscope::render
