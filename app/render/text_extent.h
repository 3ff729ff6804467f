// The widest of a set of labels in a font: the room a column of token labels needs before any
// cap or elision the caller applies. QtGui only, header-only.
#pragma once

#include <algorithm>

#include <QFontMetricsF>
#include <QStringList>

namespace attnscope::render {

inline double widestAdvance(const QFontMetricsF& fm, const QStringList& labels) {
    double w = 0;
    for (const QString& s : labels) {
        w = std::max(w, fm.horizontalAdvance(s));
    }
    return w;
}

}  // namespace attnscope::render
