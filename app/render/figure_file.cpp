#include "render/figure_file.h"

#include <cmath>

#include <QBuffer>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>

#include "attnscope/base/error.h"
#include "attnscope/export/output_file.h"

namespace attnscope::render {

namespace {

[[noreturn]] void fail(const QString& path, const QString& reason) {
    throw Error((path + QStringLiteral(": ") + reason).toStdString());
}

void checkPage(const QString& path, const FigurePage& page) {
    const auto inRange = [](int v, int lo, int hi) { return v >= lo && v <= hi; };
    if (!inRange(page.pixelSize.width(), kMinFigurePixels, kMaxFigurePixels) ||
        !inRange(page.pixelSize.height(), kMinFigurePixels, kMaxFigurePixels)) {
        throw InvalidArgument(QStringLiteral("%1: figure size %2x%3 pixels; expected %4 to %5 each")
                                  .arg(path)
                                  .arg(page.pixelSize.width())
                                  .arg(page.pixelSize.height())
                                  .arg(kMinFigurePixels)
                                  .arg(kMaxFigurePixels)
                                  .toStdString());
    }
    if (!inRange(page.dpi, kMinFigureDpi, kMaxFigureDpi)) {
        throw InvalidArgument(QStringLiteral("%1: %2 dpi; expected %3 to %4")
                                  .arg(path)
                                  .arg(page.dpi)
                                  .arg(kMinFigureDpi)
                                  .arg(kMaxFigureDpi)
                                  .toStdString());
    }
}

void writePng(QBuffer& file, const QString& path, const FigurePage& page,
              const FigurePaintFn& paint) {
    QImage image(page.pixelSize, QImage::Format_RGB32);
    if (image.isNull()) {
        fail(path, QStringLiteral("cannot allocate a %1x%2 image")
                       .arg(page.pixelSize.width())
                       .arg(page.pixelSize.height()));
    }
    image.fill(Qt::white);
    const int dotsPerMeter = static_cast<int>(std::lround(page.dpi / 0.0254));
    image.setDotsPerMeterX(dotsPerMeter);
    image.setDotsPerMeterY(dotsPerMeter);
    image.setText(QStringLiteral("Software"), QStringLiteral("AttnScope"));
    if (!page.title.isEmpty()) {
        image.setText(QStringLiteral("Title"), page.title);
    }
    {
        QPainter painter(&image);
        paint(painter);
    }
    if (!image.save(&file, "PNG")) {
        fail(path, QStringLiteral("cannot encode the PNG image"));
    }
}

void writeSvg(QBuffer& file, const QString& path, const FigurePage& page,
              const FigurePaintFn& paint) {
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(page.pixelSize);
    svg.setViewBox(QRect(QPoint(0, 0), page.pixelSize));
    svg.setResolution(page.dpi);  // sets the width/height attributes in millimetres
    svg.setTitle(page.title);
    svg.setDescription(QStringLiteral("Made with AttnScope"));
    QPainter painter;
    if (!painter.begin(&svg)) {
        fail(path, QStringLiteral("cannot start the SVG document"));
    }
    paint(painter);
    painter.end();
}

void writePdf(QBuffer& file, const QString& path, const FigurePage& page,
              const FigurePaintFn& paint) {
    QPdfWriter pdf(&file);
    pdf.setCreator(QStringLiteral("AttnScope"));
    pdf.setTitle(page.title);
    pdf.setResolution(page.dpi);
    const QSizeF inches(page.pixelSize.width() / double(page.dpi),
                        page.pixelSize.height() / double(page.dpi));
    pdf.setPageSize(QPageSize(inches, QPageSize::Inch, QString(), QPageSize::ExactMatch));
    pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
    QPainter painter;
    if (!painter.begin(&pdf)) {
        fail(path, QStringLiteral("cannot start the PDF document"));
    }
    // QPageSize keeps inches to a few decimals, so the page may be a pixel or two off the
    // requested size; scale so the figure fills it exactly.
    painter.scale(pdf.width() / double(page.pixelSize.width()),
                  pdf.height() / double(page.pixelSize.height()));
    paint(painter);
    if (!painter.end()) {
        fail(path, QStringLiteral("cannot finish the PDF document"));
    }
}

}  // namespace

FigureFormat figureFormatFor(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png")) {
        return FigureFormat::Png;
    }
    if (suffix == QLatin1String("svg")) {
        return FigureFormat::Svg;
    }
    if (suffix == QLatin1String("pdf")) {
        return FigureFormat::Pdf;
    }
    throw InvalidArgument(
        QStringLiteral("%1: unknown figure format \"%2\"; use .png, .svg or .pdf")
            .arg(path, suffix.isEmpty() ? QStringLiteral("(no extension)") : "." + suffix)
            .toStdString());
}

void writeFigureFile(const QString& path, const FigurePage& page, const FigurePaintFn& paint) {
    const FigureFormat format = figureFormatFor(path);
    checkPage(path, page);
    // Rendered in memory, then written by the core's output rules: QSvgGenerator ignores write
    // errors (a full disk gave a truncated SVG and success), and a device or pipe as the target
    // must be written through rather than renamed over.
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    switch (format) {
        case FigureFormat::Png:
            writePng(buffer, path, page, paint);
            break;
        case FigureFormat::Svg:
            writeSvg(buffer, path, page, paint);
            break;
        case FigureFormat::Pdf:
            writePdf(buffer, path, page, paint);
            break;
    }
    buffer.close();
    exporting::writeOutputFile(
        QFile::encodeName(path).toStdString(),
        std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
}

}  // namespace attnscope::render
