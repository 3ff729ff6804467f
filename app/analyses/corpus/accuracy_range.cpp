#include "analyses/corpus/accuracy_range.h"

#include <algorithm>
#include <cmath>

#include <QObject>

namespace attnscope::app {

render::ColorRange accuracyRange(const Matrix& accuracy, bool fixed) {
    render::ColorRange range;
    range.lo = 0.0;
    range.hi = 1.0;
    range.caption = QObject::tr("accuracy");
    if (fixed) {
        return range;
    }
    double lo = 1.0, hi = 0.0;
    for (Eigen::Index i = 0; i < accuracy.size(); ++i) {
        const double v = accuracy.data()[i];
        if (std::isfinite(v)) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    }
    if (hi > lo) {
        range.lo = lo;
        range.hi = hi;
        range.caption = QObject::tr("accuracy (data range)");
    }
    return range;
}

QStringList layerLabels(int layers) {
    QStringList out;
    for (int l = 0; l < layers; ++l) {
        out << QStringLiteral("L%1").arg(l);
    }
    return out;
}

QStringList headLabels(int heads) {
    QStringList out;
    for (int h = 0; h < heads; ++h) {
        out << QStringLiteral("H%1").arg(h);
    }
    return out;
}

}  // namespace attnscope::app
