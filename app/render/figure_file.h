// Writes one painted figure to a PNG, SVG or PDF file, the format chosen by the extension.
//
// The paint callback always sees the same coordinate system, whatever the format: (0, 0) to
// `pixelSize`, one unit per PNG pixel, with a physical size of pixelSize / dpi inches. So fonts
// sized in points (pt * dpi / 72 units) come out the same size on paper in every format.
//   .png  raster, pixelSize pixels, the DPI stored as dots per metre;
//   .svg  QSvgGenerator: text stays text, shapes stay shapes, images are embedded PNG;
//   .pdf  QPdfWriter: one page of exactly the figure's size, vector.
//
// Rendered in memory, then written by the core's output rules (export/output_file.h): to a
// temporary file beside the target, renamed into place only when everything succeeded, so a
// failure (including an exception from `paint`) never leaves a half-written file and never
// destroys an older one; devices and pipes are written through. Errors throw attnscope::Error
// "<file>: <reason>" (InvalidArgument for an unknown extension or an unusable size).
// Needs a QGuiApplication (fonts); call from the thread that owns it or any thread once it
// exists (QImage, QSvgGenerator and QPdfWriter are not tied to the GUI thread).
#pragma once

#include <functional>

#include <QSize>
#include <QString>

class QPainter;

namespace attnscope::render {

enum class FigureFormat { Png, Svg, Pdf };

// From the extension, case-insensitive; throws InvalidArgument naming the file otherwise.
FigureFormat figureFormatFor(const QString& path);

struct FigurePage {
    QSize pixelSize{1600, 1400};
    int dpi = 200;
    QString title;  // stored in the file's metadata (PNG text, SVG <title>, PDF /Title)
};

// Limits that keep a mistyped size from allocating gigabytes.
inline constexpr int kMinFigurePixels = 64;
inline constexpr int kMaxFigurePixels = 20000;
inline constexpr int kMinFigureDpi = 36;
inline constexpr int kMaxFigureDpi = 2400;

using FigurePaintFn = std::function<void(QPainter&)>;

void writeFigureFile(const QString& path, const FigurePage& page, const FigurePaintFn& paint);

}  // namespace attnscope::render
