// Saves a chart view to an image file for the export menu. The format follows the suffix:
// ".svg" is rendered as vectors with QSvgGenerator, any raster format Qt can write (".png",
// ".jpg", ...) is a grab of the view at screen resolution. Files are written through QSaveFile,
// so a failed export never leaves a half-written file behind. GUI thread only.
#pragma once

#include <functional>

#include <QByteArray>
#include <QString>

class QChartView;
class QSaveFile;

namespace attnscope::app {

// Writes a figure to `path` through QSaveFile: `write` gets the open file and the format the
// suffix names ("svg", or a raster format Qt can write such as "png"); `what` names the figure
// in the message when it fails ("the chart"). Shared by every figure export.
bool saveFigureFile(const QString& path, const QString& what,
                    const std::function<bool(QSaveFile& file, const QByteArray& format)>& write,
                    QString* error = nullptr);

// The chart view as a figure. Both return false and set *error (when given) to "<path>: <reason>"
// on failure.
bool saveChartView(QChartView* view, const QString& path, QString* error = nullptr);

}  // namespace attnscope::app
