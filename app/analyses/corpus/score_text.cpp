#include "analyses/corpus/score_text.h"

#include <cmath>

#include <QCoreApplication>

namespace attnscope::app::corpus {

QString headText(HeadId head) {
    return QStringLiteral("%1-%2").arg(head.layer).arg(head.head);
}

QString percentText(const analysis::Counts& c) {
    const double a = c.accuracy();
    return std::isnan(a) ? QStringLiteral("–") : QStringLiteral("%1 %").arg(100.0 * a, 0, 'f', 1);
}

QString noPredictionText(const analysis::Counts& c) {
    // Such words are outside the accuracy (issue 16), so say how many there were.
    return c.noPrediction == 0
               ? QString()
               : QCoreApplication::translate("DependencyTableModel", "; %1 without a prediction")
                     .arg(c.noPrediction);
}

}  // namespace attnscope::app::corpus
