// The set-up every analysis chart view shares: antialiased, no animation (a new result must
// appear at once), small margins and the legend at one edge. Header-only, GUI thread.
#pragma once

#include <QChart>
#include <QChartView>
#include <QLegend>
#include <QMargins>
#include <QPainter>

namespace attnscope::app {

// Sets `view` up and returns its chart for the series and axes the caller adds.
inline QChart* setUpChartView(QChartView* view, int margin = 4,
                              Qt::Alignment legend = Qt::AlignTop) {
    view->setRenderHint(QPainter::Antialiasing);
    QChart* c = view->chart();
    c->setAnimationOptions(QChart::NoAnimation);
    c->setMargins(QMargins(margin, margin, margin, margin));
    c->legend()->setAlignment(legend);
    return c;
}

}  // namespace attnscope::app
