#include "widgets/chart_export.h"

#include <functional>

#include <QChartView>
#include <QFileInfo>
#include <QImageWriter>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>

namespace attnscope::app {

namespace {

bool fail(QString* error, const QString& path, const QString& reason) {
    if (error) {
        *error = path + QStringLiteral(": ") + reason;
    }
    return false;
}

// Renders the scene rather than grabbing pixels so the SVG keeps lines and text as vectors.
bool writeSvg(QChartView* view, QSaveFile& file) {
    const QSize size = view->size();
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(view->chart()->title());
    svg.setDescription(QStringLiteral("AttnScope chart"));
    QPainter painter;
    if (!painter.begin(&svg)) {
        return false;
    }
    painter.setRenderHint(QPainter::Antialiasing);
    view->scene()->render(&painter, QRectF(QPointF(0, 0), size), view->chart()->geometry());
    return painter.end();
}

}  // namespace

bool saveFigureFile(const QString& path, const QString& what,
                    const std::function<bool(QSaveFile& file, const QByteArray& format)>& write,
                    QString* error) {
    const QByteArray suffix = QFileInfo(path).suffix().toLower().toLatin1();
    if (suffix != "svg" && !QImageWriter::supportedImageFormats().contains(suffix)) {
        return fail(error, path,
                    QStringLiteral("unsupported image format \"%1\" (use .png or .svg)")
                        .arg(QString::fromLatin1(suffix)));
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        return fail(error, path, QStringLiteral("cannot write: ") + file.errorString());
    }
    if (!write(file, suffix)) {
        file.cancelWriting();
        return fail(error, path,
                    QStringLiteral("cannot render %1: %2").arg(what, file.errorString()));
    }
    if (!file.commit()) {
        return fail(error, path, QStringLiteral("cannot write: ") + file.errorString());
    }
    return true;
}

bool saveChartView(QChartView* view, const QString& path, QString* error) {
    if (view == nullptr) {
        return fail(error, path, QStringLiteral("no such chart"));
    }
    const auto write = [view](QSaveFile& file, const QByteArray& format) {
        if (view->width() < 320 || view->height() < 200) {
            view->resize(900, 500);  // never laid out (not shown yet): export at a useful size
        }
        return format == "svg" ? writeSvg(view, file)
                               : view->grab().toImage().save(&file, format.constData());
    };
    return saveFigureFile(path, QStringLiteral("the chart"), write, error);
}

}  // namespace attnscope::app
