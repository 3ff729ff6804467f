// Saves a chart view to an image file for the export menu. The format follows the suffix:
// ".svg" is rendered as vectors with QSvgGenerator, any raster format Qt can write (".png",
// ".jpg", ...) is a grab of the view at screen resolution. Files are written through QSaveFile,
// so a failed export never leaves a half-written file behind. GUI thread only.
#pragma once

#include <QString>

class QChartView;

namespace attnscope::app {

// Returns false and sets *error (when given) to "<path>: <reason>" on failure.
bool saveChartView(QChartView* view, const QString& path, QString* error = nullptr);

}  // namespace attnscope::app
